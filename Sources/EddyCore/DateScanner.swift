/// A cursor over the bytes of an HTTP date, matching the three grammars of RFC 9110 section
/// 5.6.7 (used by `HTTPDate.parse`), with one leniency: day names, month names and "GMT" in any
/// case (`THU, 18 AUG 2050 02:01:18 gmt`). HTTP-date is case-sensitive, but recipients "are
/// encouraged to be robust in parsing timestamps" (same section), and the HTTP caching tests
/// expect such an Expires to give freshness. Each form resets the cursor first.
struct DateScanner {
    private let b: [UInt8]
    private var i = 0
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    init(_ bytes: [UInt8]) { b = bytes }

    typealias Fields = (day: Int, month: Int, year: Int, hour: Int, minute: Int, second: Int)

    /// `day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"`
    mutating func imfFixdate() -> Fields? {
        i = 0
        guard word(DateScanner.shortDays) != nil, lit(", "), let d = digits(2), lit(" "), let m = month(), lit(" "),
              let y = digits(4), lit(" "), let t = time(), lit(" GMT"), i == b.count else { return nil }
        return (d, m, y, t.0, t.1, t.2)
    }

    /// `day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"`
    mutating func rfc850() -> Fields? {
        i = 0
        guard word(DateScanner.longDays) != nil, lit(", "), let d = digits(2), lit("-"), let m = month(), lit("-"),
              let y = digits(2), lit(" "), let t = time(), lit(" GMT"), i == b.count else { return nil }
        return (d, m, y, t.0, t.1, t.2)
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT`
    mutating func asctime() -> Fields? {
        i = 0
        guard word(DateScanner.shortDays) != nil, lit(" "), let m = month(), lit(" ") else { return nil }
        let d: Int
        if lit(" "), let one = digits(1) { d = one } else if let two = digits(2) { d = two } else { return nil }
        guard lit(" "), let t = time(), lit(" "), let y = digits(4), i == b.count else { return nil }
        return (d, m, y, t.0, t.1, t.2)
    }

    private mutating func time() -> (Int, Int, Int)? {
        guard let h = digits(2), lit(":"), let m = digits(2), lit(":"), let s = digits(2) else { return nil }
        return (h, m, s)
    }

    private mutating func month() -> Int? { word(HTTPDate.monthNames).map { $0 + 1 } }

    /// Index of the word of `words` at the cursor (in any case), consumed.
    private mutating func word(_ words: [String]) -> Int? {
        for (n, w) in words.enumerated() where lit(w) { return n }
        return nil
    }

    /// `s` at the cursor, letters in any case (ASCII), consumed.
    private mutating func lit(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard b.count - i >= u.count else { return false }
        for k in 0..<u.count where DateScanner.lower(b[i + k]) != DateScanner.lower(u[k]) { return false }
        i += u.count
        return true
    }

    private static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c | 0x20 : c }

    private mutating func digits(_ n: Int) -> Int? {
        guard b.count - i >= n else { return nil }
        var v = 0
        for k in 0..<n {
            let c = b[i + k]
            guard c >= 48 && c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        i += n
        return v
    }
}
