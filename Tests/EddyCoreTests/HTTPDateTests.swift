@testable import EddyCore
import XCTest

/// RFC 9110 section 5.6.7.
final class HTTPDateTests: XCTestCase {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example.
    private let example = 784_111_777

    func test_parse_imfFixdate_isEpochSeconds() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), example)
    }

    func test_parse_rfc850_isEpochSeconds() {
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), example)
    }

    func test_parse_asctime_isEpochSeconds() {
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), example)
    }

    func test_parse_asctimeTwoDigitDay_isEpochSeconds() {
        XCTAssertEqual(HTTPDate.parse("Thu Nov 24 08:49:37 1994"), example + 18 * 86400)
    }

    func test_parse_epoch_isZero() {
        XCTAssertEqual(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT"), 0)
    }

    func test_parse_acceptsNamesInAnyCase() {
        // RFC 9110 section 5.6.7 asks recipients to be robust; the HTTP caching tests'
        // freshness-expires-wrong-case-weekday, -month and -tz expect these to give freshness.
        let t = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")
        XCTAssertNotNil(t)
        for v in ["THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gmt",
                  "thu, 18 aug 2050 02:01:18 Gmt", "THURSDAY, 18-AUG-50 02:01:18 GMT", "THU AUG 18 02:01:18 2050"] {
            XCTAssertEqual(HTTPDate.parse(v, now: 1_800_000_000), t, v)
        }
    }

    /// The invalid Expires forms of the HTTP caching test suite: each is already expired (RFC 9111
    /// section 5.3), so none may parse.
    func test_parse_nearMisses_areInvalid() {
        for v in ["Sun, 06 Nov 1994 08:49:37 AEST", "Sun, 06 Nov 94 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT",
                  "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994  08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT",
                  "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", " Sun, 06 Nov 1994 08:49:37 GMT",
                  "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06 Nov 1994 08:49:37 GMT",
                  "Sun, 30 Feb 2024 00:00:00 GMT", "Sun Nov 6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 +0000"] {
            XCTAssertNil(HTTPDate.parse(v), v)
        }
    }

    func test_parse_rfc850TwoDigitYear_isNeverMoreThan50YearsAhead() {
        let now2026 = HTTPDate.parse("Sun, 22 Nov 2026 00:00:00 GMT")!
        XCTAssertEqual(HTTPDate.parse("Monday, 01-Jan-76 00:00:00 GMT", now: now2026), HTTPDate.parse("Thu, 01 Jan 2076 00:00:00 GMT"))
        XCTAssertEqual(HTTPDate.parse("Thursday, 01-Jan-77 00:00:00 GMT", now: now2026), HTTPDate.parse("Sat, 01 Jan 1977 00:00:00 GMT"))
    }

    func test_parse_leapDay_isCounted() {
        XCTAssertEqual(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT"), 1_709_208_000)
        XCTAssertEqual(HTTPDate.parse("Fri, 01 Mar 2024 00:00:00 GMT"), 1_709_251_200)
    }

    func test_parse_rfc850TwoDigitYears_mapToNearestCentury() {
        XCTAssertEqual(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT"), 0)
        XCTAssertEqual(HTTPDate.parse("Saturday, 01-Jan-00 00:00:00 GMT"), 946_684_800)
    }

    func test_parse_leapSecond_isAccepted() {
        XCTAssertEqual(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT"), 1_483_228_800)
    }

    func test_parse_invalid_isNil() {
        for v in ["", "0", "-1", "garbage", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT",
                  "Sun, Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
                  "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 1994 08:49:aa GMT", "Sun, 06 Nov 08:49:37 GMT",
                  "Sun, 32 Nov 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(v), v)
        }
    }

    func test_format_example_isIMFFixdate() {
        XCTAssertEqual(HTTPDate.format(example), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.format(0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.format(1_709_208_000), "Thu, 29 Feb 2024 12:00:00 GMT")
    }

    func test_format_beforeEpoch_isCorrect() {
        XCTAssertEqual(HTTPDate.format(-1), "Wed, 31 Dec 1969 23:59:59 GMT")
        XCTAssertEqual(HTTPDate.format(-86400), "Wed, 31 Dec 1969 00:00:00 GMT")
    }

    func test_format_yearBelow1000_isZeroPaddedToFourDigits_andRoundTrips() {
        // Found by FuzzHeaders: "Sun, 06 Nov 0997 ..." parsed, then formatted with a 3-digit year.
        // (The day name is not checked by the parser; the formatter writes the proleptic one.)
        let t = HTTPDate.parse("Sun, 06 Nov 0997 08:49:37 GMT")
        XCTAssertNotNil(t)
        XCTAssertEqual(t.map(HTTPDate.format), "Mon, 06 Nov 0997 08:49:37 GMT")
        XCTAssertEqual(t.map(HTTPDate.format).flatMap { HTTPDate.parse($0) }, t)
        XCTAssertTrue(HTTPDate.format(-60_000_000_000).contains(" 0068 "), HTTPDate.format(-60_000_000_000))
    }

    func test_formatThenParse_manyInstants_roundTrip() {
        var t = -2_000_000_000
        while t < 4_000_000_000 {
            XCTAssertEqual(HTTPDate.parse(HTTPDate.format(t)), t, HTTPDate.format(t))
            t += 7_654_321
        }
    }

    func test_daysFromCivil_civilFromDays_areInverse() {
        for d in stride(from: -800_000, to: 800_000, by: 997) {
            let (y, m, dd) = HTTPDate.civil(fromDays: d)
            XCTAssertEqual(HTTPDate.days(fromCivil: y, m, dd), d)
        }
    }

    /// FuzzHeaders: a year of 12 digits overflowed the day arithmetic and crashed.
    func test_parse_hugeYear_isNil() {
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 999999999999 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("Sunday, 06-Nov-99999999999999999 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("Sun Nov  6 08:49:37 99999999999999"))
        XCTAssertNotNil(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
    }

    /// FuzzHeaders: the leap second ending year 9999 parsed to a time that formats as year 10000.
    func test_parse_leapSecondEndingYear9999_isNilAndLastSecondRoundTrips() {
        XCTAssertNil(HTTPDate.parse("Fri, 31 Dec 9999 23:59:60 GMT"))
        let t = HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT")!
        XCTAssertEqual(HTTPDate.parse(HTTPDate.format(t)), t)
    }
}
