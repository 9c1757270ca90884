/// HTTP dates (RFC 9110 section 5.6.7) as seconds since the Unix epoch.
///
/// Parses all three forms a recipient must accept (IMF-fixdate, RFC 850, asctime) and writes
/// IMF-fixdate only. Hand-written because it is on every response path and must not depend
/// on locale or time zone settings.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// Formats `seconds` as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secs = seconds - days * 86400
        let (y, m, d) = civil(fromDays: days)
        let wd = dayNames[((days % 7) + 7) % 7]
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(wd), \(two(d)) \(monthNames[m - 1]) \(y) \(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60)) GMT"
    }

    /// Parses any of the three HTTP date forms; nil when invalid.
    public static func parse(_ value: String) -> Int? {
        let tokens = value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map { $0.lowercased() }
        // IMF-fixdate: [wkday] DD Mon YYYY HH:MM:SS GMT ; RFC 850: [weekday] DD-Mon-YY HH:MM:SS GMT
        // asctime: wkday Mon D HH:MM:SS YYYY
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        for t in tokens {
            if t.contains(":") {
                let p = t.split(separator: ":").compactMap { Int($0) }
                guard p.count == 3 else { return nil }
                time = (p[0], p[1], p[2])
            } else if let mi = months.firstIndex(of: String(t.prefix(3))), t.count == 3 {
                month = mi + 1
            } else if t.count <= 4, let n = Int(t) { // years are 4DIGIT (RFC 9110 section 5.6.7)
                if day == nil && t.count <= 2 && (month == nil || year == nil) && n >= 1 && n <= 31 && !(year == nil && time != nil) {
                    day = n
                } else {
                    year = n
                }
            }
        }
        guard let d = day, let m = month, var y = year, let (hh, mm, ss) = time,
              hh < 24, mm < 60, ss <= 60 else { return nil }
        if y < 100 { y += y < 70 ? 2000 : 1900 } // RFC 9110 section 5.6.7: two-digit years, 50-year rule approximated
        let t = days(fromCivil: y, m, d) * 86400 + hh * 3600 + mm * 60 + ss
        // A leap second (:60) is the next second, as timegm has it; on 31 Dec 9999 that is a year
        // 10000 no HTTP date can name, so it is refused (found by the FuzzHeaders harness).
        return t < HTTPDate.endOfYear9999 ? t : nil
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
