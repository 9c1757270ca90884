/// One range-spec of a `Range: bytes=` header (RFC 9110 section 14.1.1), before the length is known.
public enum RangeSpec: Equatable, Sendable {
    /// `first-last` or `first-` (open, `last == nil`).
    case from(first: Int, last: Int?)
    /// `-N`: the last N bytes.
    case suffix(length: Int)

    /// Resolves against a representation of `length` bytes, clamping as RFC 9110 section 14.1.1 says;
    /// nil when unsatisfiable (first >= length, or a zero-length suffix: `bytes=-0`).
    public func resolve(length: Int) -> ByteSpan? {
        switch self {
        case let .from(first, last):
            guard first < length else { return nil }
            return ByteSpan(first: first, last: Swift.min(last ?? (length - 1), length - 1))
        case let .suffix(n):
            guard n > 0, length > 0 else { return nil }
            return ByteSpan(first: Swift.max(0, length - n), last: length - 1)
        }
    }
}
