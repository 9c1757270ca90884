/// One satisfiable byte range of a representation, inclusive as HTTP writes it (RFC 9110 section 14.1.1).
public struct ByteSpan: Equatable, Hashable, Sendable {
    /// Offset of the first byte.
    public let first: Int
    /// Offset of the last byte (inclusive).
    public let last: Int

    /// Creates a span; `last` must be >= `first`.
    public init(first: Int, last: Int) {
        precondition(last >= first, "empty span")
        self.first = first
        self.last = last
    }

    /// The number of bytes.
    public var count: Int { last - first + 1 }
    /// The same bytes as a half-open range.
    public var range: Range<Int> { first..<(last + 1) }
}
