/// ASCII hex digits, for the byte-level parsers (percent-encoding, IPv6 groups).
enum HexDigit {
    /// The value of `c` as a hex digit, or nil.
    static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }
}
