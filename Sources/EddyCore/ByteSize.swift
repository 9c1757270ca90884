/// Parses sizes such as `512M` or `10G` (binary multiples: K = 1024) for flags and the config file.
public enum ByteSize {
    /// Returns the number of bytes, or nil when the text is not a size. Accepts an optional `B`/`iB`
    /// after the suffix (`1GiB`, `1GB` both mean 2^30) since users write both.
    public static func parse(_ text: String) -> Int? {
        var s = text.trimmingOWS().uppercased()[...]
        if s.hasSuffix("IB") { s = s.dropLast(2) } else if s.hasSuffix("B") && s.count > 1 && !s.dropLast().last!.isNumber { s = s.dropLast() }
        var shift = 0
        switch s.last {
        case "K": shift = 10
        case "M": shift = 20
        case "G": shift = 30
        case "T": shift = 40
        default: break
        }
        if shift > 0 { s = s.dropLast() }
        guard let n = RangeHeader.parseDigits(s.trimmingOWS()), n < (Int.max >> shift) else { return nil }
        return n << shift
    }

    /// Formats bytes with the largest exact binary suffix, e.g. `256M`.
    public static func format(_ bytes: Int) -> String {
        for (shift, suffix) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] where bytes != 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(suffix)"
        }
        return "\(bytes)"
    }
}
