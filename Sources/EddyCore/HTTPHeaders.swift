/// An ordered list of header fields with case-insensitive lookup (RFC 9110 section 5.1).
public struct HTTPHeaders: Equatable, Sendable, Sequence {
    /// Fields in the order received.
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    /// An empty list with room for `capacity` fields (no regrowth while they are added).
    public init(capacity: Int) { fields.reserveCapacity(capacity) }
    public init(_ fields: [(String, String)]) { for (n, v) in fields { add(n, v) } }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Appends a field.
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// These fields followed by `other`'s.
    public func appending(_ other: HTTPHeaders) -> HTTPHeaders {
        var h = self
        h.fields.append(contentsOf: other.fields)
        return h
    }

    /// Replaces all fields of `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes all fields of `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first value of `name`.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the field `name`, one per line, in order.
    public func values(_ name: String) -> [String] {
        fields.compactMap { $0.name.caseInsensitiveEquals(name) ? $0.value : nil }
    }

    /// All values of `name` joined with ", " (RFC 9110 section 5.3), nil when absent.
    public func combined(_ name: String) -> String? {
        let v = fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
        return v.isEmpty ? nil : v.joined(separator: ", ")
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

extension String {
    /// ASCII case-insensitive equality without allocating, over both strings' contiguous UTF-8
    /// (a header lookup runs it for every field of a request; the generic `zip` over two
    /// UTF8Views it replaced showed in a small hit's profile).
    @inlinable
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var a = self, b = other // withUTF8 may make a bridged copy contiguous, so it is mutating
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for i in 0..<x.count where x[i] != y[i] && String.asciiLower(x[i]) != String.asciiLower(y[i]) { return false }
                return true
            }
        }
    }

    /// `c` with A-Z folded to a-z; every other byte as it is.
    @inlinable
    static func asciiLower(_ c: UInt8) -> UInt8 { (c >= 65 && c <= 90) ? c + 32 : c }
}
