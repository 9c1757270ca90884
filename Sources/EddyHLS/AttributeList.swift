import EddyCore

/// A tag's attribute list (RFC 8216bis section 4.2): `NAME=VALUE` pairs separated by commas, a
/// value being a quoted string (which may hold commas), or a decimal, hexadecimal, float,
/// resolution or enumerated string up to the next comma. Parsing never fails: a pair without
/// `=` or with an unterminated quote ends the list, keeping what came before; a repeated name
/// keeps its first value (the draft says clients should ignore the whole tag; eddy keeps what
/// it can and lets the selection rules decide).
public struct AttributeList: Sendable, Equatable {
    /// The pairs in order; quoted values without their quotes.
    public private(set) var pairs: [(name: String, value: String, quoted: Bool)] = []

    public static func == (a: AttributeList, b: AttributeList) -> Bool {
        a.pairs.elementsEqual(b.pairs) { $0.name == $1.name && $0.value == $1.value && $0.quoted == $1.quoted }
    }

    /// Parses the text after a tag's colon.
    public init<S: StringProtocol>(_ text: S) {
        var s = Substring(text)
        while !s.isEmpty {
            s = s.drop { $0 == " " || $0 == "\t" }
            guard let eq = s.firstIndex(of: "=") else { return }
            let name = String(s[..<eq].trimmingOWS())
            var rest = s[s.index(after: eq)...]
            let value: Substring
            let quoted = rest.first == "\""
            if quoted {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else { return }
                value = rest[..<close]
                rest = rest[rest.index(after: close)...]
                // Anything between the closing quote and the comma is not part of the value.
                rest = rest.firstIndex(of: ",").map { rest[$0...] } ?? rest[rest.endIndex...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingOWS()
                rest = rest[end...]
            }
            if !name.isEmpty && !pairs.contains(where: { $0.name == name }) {
                pairs.append((name, String(value), quoted))
            }
            s = rest.first == "," ? rest.dropFirst() : rest
        }
    }

    /// The value of `name` (quoted or not), nil when absent.
    public subscript(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// A decimal-integer attribute; nil when absent or not a non-negative integer that fits.
    public func integer(_ name: String) -> Int? { self[name].flatMap(AttributeList.decimalInteger) }

    /// A decimal-floating-point attribute; nil when absent, malformed, negative or not finite.
    public func decimal(_ name: String) -> Double? { self[name].flatMap(AttributeList.decimalFloat) }

    /// A decimal-resolution attribute (`1920x1080`); nil when absent or malformed.
    public func resolution(_ name: String) -> (width: Int, height: Int)? {
        guard let parts = self[name]?.split(separator: "x", omittingEmptySubsequences: false), parts.count == 2,
              let w = AttributeList.decimalInteger(parts[0]), let h = AttributeList.decimalInteger(parts[1]) else { return nil }
        return (w, h)
    }

    /// A decimal-integer (RFC 8216bis section 4.2) of at most 18 digits, so it always fits. Also
    /// read outside attribute lists (EXT-X-BYTERANGE).
    public static func decimalInteger<S: StringProtocol>(_ text: S) -> Int? {
        text.utf8.count <= 18 ? RangeHeader.parseDigits(Substring(text)) : nil
    }

    /// A non-negative decimal-floating-point (digits and a point, at most 32 characters), finite.
    /// Also read outside attribute lists (EXTINF, EXT-X-TARGETDURATION).
    public static func decimalFloat<S: StringProtocol>(_ v: S) -> Double? {
        guard !v.isEmpty, v.utf8.count <= 32, v.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 }),
              let d = Double(v), d.isFinite else { return nil }
        return d
    }

    /// An enumerated YES/NO attribute; `otherwise` when absent or anything else.
    public func flag(_ name: String, otherwise: Bool = false) -> Bool {
        switch self[name] {
        case "YES": return true
        case "NO": return false
        default: return otherwise
        }
    }

    /// A comma-separated list inside a quoted string (CODECS, CHARACTERISTICS), trimmed, no empties.
    public func list(_ name: String) -> [String] {
        guard let v = self[name] else { return [] }
        return v.split(separator: ",").map { String($0.trimmingOWS()) }.filter { !$0.isEmpty }
    }
}
