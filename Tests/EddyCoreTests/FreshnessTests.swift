import EddyCore
import XCTest

/// RFC 9111 section 4.2.
final class FreshnessTests: XCTestCase {
    private let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    private let datePlusHour = "Sun, 06 Nov 1994 09:49:37 GMT"

    /// When the response arrived: the `date` example.
    private let responseTime = 784_111_777

    private func compute(_ cc: String?, expires: String? = nil, date: String? = nil, defaultLifetime: Int = 999,
                         status: Int = 200, fields: [(String, String)] = []) -> Freshness {
        var h = HTTPHeaders()
        if let cc { h.add("Cache-Control", cc) }
        if let expires { h.add("Expires", expires) }
        if let date { h.add("Date", date) }
        for (n, v) in fields { h.add(n, v) }
        var p = FreshnessPolicy()
        p.defaultLifetime = defaultLifetime
        return Freshness.compute(headers: h, status: status, responseTime: responseTime, policy: p)
    }

    func test_compute_sMaxAge_winsOverMaxAgeAndExpires() {
        let f = compute("max-age=100, s-maxage=10", expires: datePlusHour, date: date)
        XCTAssertEqual(f.lifetime, 10)
    }

    func test_compute_sMaxAge_impliesProxyRevalidate() {
        // RFC 9111 section 5.2.2.10: s-maxage incorporates proxy-revalidate for a shared cache.
        XCTAssertTrue(compute("s-maxage=10").requiresRevalidation)
        XCTAssertFalse(compute("max-age=10").requiresRevalidation)
    }

    func test_compute_maxAge_winsOverExpires() {
        let f = compute("max-age=100", expires: datePlusHour, date: date)
        XCTAssertEqual(f, Freshness(lifetime: 100, requiresRevalidation: false))
    }

    func test_compute_expiresMinusDate_isLifetime() {
        XCTAssertEqual(compute(nil, expires: datePlusHour, date: date).lifetime, 3600)
    }

    func test_compute_expiresBeforeDate_isZero() {
        XCTAssertEqual(compute(nil, expires: date, date: datePlusHour).lifetime, 0)
    }

    func test_compute_invalidExpires_isZero() {
        // RFC 9111 section 5.3: an invalid Expires such as "0" means already expired.
        XCTAssertEqual(compute(nil, expires: "0", date: date).lifetime, 0)
        XCTAssertEqual(compute("public", expires: "garbage").lifetime, 0)
    }

    func test_compute_expiresWithoutDate_countsFromTheResponseTime() {
        // RFC 9111 section 4.2.1: without Date, the time the message was received.
        XCTAssertEqual(compute(nil, expires: datePlusHour).lifetime, 3600)
    }

    func test_compute_expiresWithInvalidDate_countsFromTheResponseTime() {
        XCTAssertEqual(compute(nil, expires: datePlusHour, date: "nope").lifetime, 3600)
    }

    func test_compute_repeatedExpires_isExpired() {
        XCTAssertEqual(compute(nil, date: date, fields: [("Expires", datePlusHour), ("Expires", datePlusHour)]).lifetime, 0)
    }

    func test_compute_invalidExpiresForms_areExpired() {
        for e in ["Sun, 06 Nov 1994 09:49:37 AEST", "Sun, 06 Nov 94 09:49:37 GMT", "Sun 06 Nov 1994 09:49:37 GMT",
                  "Sun,  06 Nov 1994 09:49:37 GMT", "Sun, 06-Nov-1994 09:49:37 GMT", "Sun, 06 Nov 1994 9:49:37 GMT"] {
            XCTAssertEqual(compute(nil, expires: e, date: date).lifetime, 0, e)
        }
    }

    func test_compute_nothing_isDefaultLifetime() {
        XCTAssertEqual(compute(nil, defaultLifetime: 3600), Freshness(lifetime: 3600, requiresRevalidation: false, isHeuristic: true))
        XCTAssertEqual(compute("public", date: date, defaultLifetime: 42).lifetime, 42)
        XCTAssertEqual(compute(nil, defaultLifetime: 0).lifetime, 0, "the default: no lifetime without information")
    }

    func test_compute_heuristic_isATenthOfTheTimeSinceLastModified_capped() {
        let lm = ("Last-Modified", "Sun, 06 Nov 1994 07:49:37 GMT") // an hour before Date
        XCTAssertEqual(compute(nil, date: date, fields: [lm]), Freshness(lifetime: 360, requiresRevalidation: false, isHeuristic: true))
        let old = ("Last-Modified", "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(compute(nil, date: date, fields: [old]).lifetime, 86400, "capped by heuristic_max")
        XCTAssertEqual(compute(nil, date: date, status: 302, fields: [lm]).lifetime, 999, "302 is not heuristically cacheable")
    }

    func test_compute_negativeCaching_ofA404WithoutLifetime() {
        XCTAssertEqual(compute(nil, date: date, status: 404).lifetime, 10)
        XCTAssertEqual(compute("max-age=60", date: date, status: 404).lifetime, 60)
    }

    func test_compute_targetedFields_winOverCacheControl() {
        XCTAssertEqual(compute("max-age=60", fields: [("CDN-Cache-Control", "max-age=600")]).lifetime, 600)
        XCTAssertEqual(compute("max-age=60", fields: [("CDN-Cache-Control", "max-age=600"), ("Eddy-Cache-Control", "max-age=6")]).lifetime, 6)
        XCTAssertFalse(compute("s-maxage=60", fields: [("CDN-Cache-Control", "max-age=600")]).requiresRevalidation,
                       "Cache-Control is ignored when a targeted field is present")
    }

    func test_compute_staleDirectives_ofRFC5861() {
        let f = compute("max-age=60, stale-while-revalidate=30, stale-if-error=600")
        XCTAssertEqual(f.staleWhileRevalidate, 30)
        XCTAssertEqual(f.staleIfError, 600)
        XCTAssertNil(compute("max-age=60").staleIfError)
    }

    func test_initialAge_ofAHugeAge_isCappedAndDoesNotOverflow() {
        // Found by FuzzHeaders: 40 digits saturate to Int.max, and adding the delay trapped.
        let h = HTTPHeaders([("Age", String(repeating: "6", count: 40))])
        XCTAssertEqual(Freshness.initialAge(headers: h, requestTime: 1_000, responseTime: 1_005), Int(Int32.max))
        let justOver = HTTPHeaders([("Age", "2147483648")])
        XCTAssertEqual(Freshness.initialAge(headers: justOver, requestTime: 0, responseTime: 0), Int(Int32.max))
    }

    func test_initialAge_isTheLargerOfApparentAgeAndAgePlusDelay() {
        // RFC 9111 section 4.2.3.
        var h = HTTPHeaders()
        h.add("Date", date)
        h.add("Age", "100")
        XCTAssertEqual(Freshness.initialAge(headers: h, requestTime: responseTime - 2, responseTime: responseTime), 102)
        var skewed = HTTPHeaders()
        skewed.add("Date", "Sun, 06 Nov 1994 08:39:37 GMT") // 600 s before the response time
        XCTAssertEqual(Freshness.initialAge(headers: skewed, requestTime: responseTime, responseTime: responseTime), 600)
        var bad = HTTPHeaders()
        bad.add("Age", "-5")
        XCTAssertEqual(Freshness.initialAge(headers: bad, requestTime: responseTime, responseTime: responseTime), 0, "invalid Age is ignored")
    }

    func test_initialAge_ofAList_isItsFirstMember() {
        // RFC 9111 section 5.1 (cache-tests age-parse-suffix): "7200, 0" is 7200; garbage after
        // a member makes the value invalid, and ignored.
        for (value, age) in [("7200, 0", 7200), ("7200,0", 7200), ("0, 7200", 0), ("7200abc", 0), (" 30 ", 30), (", 5", 0)] {
            let h = HTTPHeaders([("Age", value)])
            XCTAssertEqual(Freshness.initialAge(headers: h, requestTime: 0, responseTime: 0), age, value)
        }
    }

    func test_compute_noCache_isZeroAndRevalidate() {
        XCTAssertEqual(compute("no-cache, max-age=100, s-maxage=100"), Freshness(lifetime: 0, requiresRevalidation: true))
    }

    func test_compute_mustOrProxyRevalidate_requiresRevalidation() {
        XCTAssertEqual(compute("max-age=5, must-revalidate"), Freshness(lifetime: 5, requiresRevalidation: true))
        XCTAssertEqual(compute("max-age=5, proxy-revalidate"), Freshness(lifetime: 5, requiresRevalidation: true))
        XCTAssertTrue(compute("s-maxage=5").requiresRevalidation, "RFC 9111 section 5.2.2.10")
        XCTAssertTrue(compute("must-revalidate", defaultLifetime: 7).requiresRevalidation)
        XCTAssertTrue(compute("must-revalidate", expires: "0").requiresRevalidation)
    }

    func test_compute_maxAgeZero_isZero() {
        XCTAssertEqual(compute("max-age=0").lifetime, 0)
    }

    func test_isFresh_ageBelowLifetime_isTrue() {
        let f = Freshness(lifetime: 10, requiresRevalidation: false)
        XCTAssertTrue(f.isFresh(age: 0))
        XCTAssertTrue(f.isFresh(age: 9))
        XCTAssertFalse(f.isFresh(age: 10))
        XCTAssertFalse(f.isFresh(age: 11))
        XCTAssertFalse(Freshness(lifetime: 0, requiresRevalidation: false).isFresh(age: 0))
    }

    func test_livePlaylistRule_staleAfterHalfTheTargetDuration_orWhenNeverHeard() {
        XCTAssertTrue(Freshness.livePlaylistAllows(targetDuration: nil, lastHeardAt: nil, now: 100), "not a live playlist")
        XCTAssertTrue(Freshness.livePlaylistAllows(targetDuration: 6, lastHeardAt: 100, now: 102.9))
        XCTAssertFalse(Freshness.livePlaylistAllows(targetDuration: 6, lastHeardAt: 100, now: 103), "half of 6 s has passed")
        XCTAssertFalse(Freshness.livePlaylistAllows(targetDuration: 6, lastHeardAt: nil, now: 100), "unknown: ask the origin")
    }
}
