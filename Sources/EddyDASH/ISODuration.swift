/// `xs:duration` values (ISO 8601 durations, XML Schema part 2 section 3.2.6) as MPD attributes
/// write them: `PT2S`, `PT0.5S`, `P1DT2H30M`. Years and months are refused: their length in
/// seconds is not fixed, and no MPD timing needs them.
public enum ISODuration {
    /// Seconds, or nil for anything that is not a non-negative day-time duration.
    public static func seconds(_ text: String) -> Double? {
        var s = Substring(text.filter { !$0.isWhitespace })
        guard s.first == "P" else { return nil }
        s = s.dropFirst()
        var total = 0.0, inTime = false, any = false, number = ""
        for ch in s {
            switch ch {
            case "T":
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            case "0"..."9", ".":
                number.append(ch)
            default:
                guard let v = Double(number), v.isFinite else { return nil }
                number = ""
                any = true
                switch (ch, inTime) {
                case ("D", false): total += v * 86400
                case ("H", true): total += v * 3600
                case ("M", true): total += v * 60
                case ("S", true): total += v
                default: return nil // Y and M before T: months and years
                }
            }
        }
        return any && number.isEmpty ? total : nil
    }
}
