/// HTTP dates (RFC 9110 section 5.6.7) as seconds since the Unix epoch.
///
/// Parses exactly the three forms a recipient must accept (IMF-fixdate, RFC 850, asctime) and
/// writes IMF-fixdate only. Hand-written because it is on every response path and must not depend
/// on locale or time zone settings.
public enum HTTPDate {
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// Formats `seconds` as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secs = seconds - days * 86400
        let (y, m, d) = civil(fromDays: days)
        let wd = dayNames[((days % 7) + 7) % 7]
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        // IMF-fixdate's year is 4DIGIT (RFC 9110 section 5.6.7): year 997 is "0997".
        let year = (0..<1000).contains(y) ? String(repeating: "0", count: 4 - "\(y)".count) + "\(y)" : "\(y)"
        return "\(wd), \(two(d)) \(monthNames[m - 1]) \(year) \(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60)) GMT"
    }

    /// Parses an HTTP date in exactly one of the three forms of RFC 9110 section 5.6.7, nil for
    /// anything else (section 5.6.7: HTTP-date is case-sensitive; section 5.3 of RFC 9111: an
    /// invalid Expires means already expired, so leniency here would keep stale responses):
    ///
    ///     IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
    ///     rfc850-date  Sunday, 06-Nov-94 08:49:37 GMT
    ///     asctime-date Sun Nov  6 08:49:37 1994
    ///
    /// A two-digit rfc850 year more than 50 years after `now`'s year (epoch seconds; when nil, the
    /// year 2000 century split at 70) is in the previous century.
    public static func parse(_ value: String, now: Int? = nil) -> Int? {
        var p = DateScanner(Array(value.utf8))
        guard let (d, m, y0, hh, mm, ss) = p.imfFixdate() ?? p.rfc850() ?? p.asctime() else { return nil }
        var y = y0
        if y < 100 {
            // RFC 9110 section 5.6.7: the most recent year in the past with these two digits,
            // unless that is more than 50 years ahead.
            let current = now.map { civil(fromDays: $0 / 86400).0 } ?? 2000
            let century = current - current % 100
            y += century
            if y > current + 50 { y -= 100 }
            if now == nil && y0 >= 70 { y = 1900 + y0 }
        }
        guard (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y), hh < 24, mm < 60, ss <= 60 else { return nil }
        let t = days(fromCivil: y, m, d) * 86400 + hh * 3600 + mm * 60 + ss
        // A leap second (:60) is the next second, as timegm has it; on 31 Dec 9999 that is a year
        // 10000 no HTTP date can name, so it is refused (found by the FuzzHeaders harness).
        return t < HTTPDate.endOfYear9999 ? t : nil
    }

    static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 10000-01-01T00:00:00Z: dates have four-digit years.
    static let endOfYear9999 = days(fromCivil: 10000, 1, 1) * 86400

    // Howard Hinnant's civil-from-days algorithms (proleptic Gregorian calendar).
    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
