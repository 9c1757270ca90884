import EddyCore
import XCTest

/// RFC 9111 section 4.2.
final class FreshnessTests: XCTestCase {
    private let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    private let datePlusHour = "Sun, 06 Nov 1994 09:49:37 GMT"

    private func compute(_ cc: String?, expires: String? = nil, date: String? = nil, defaultLifetime: Int = 999) -> Freshness {
        Freshness.compute(cacheControl: CacheControl.parse(cc), expires: expires, date: date, defaultLifetime: defaultLifetime)
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

    func test_compute_expiresWithoutDate_isZero() {
        XCTAssertEqual(compute(nil, expires: datePlusHour).lifetime, 0)
    }

    func test_compute_expiresWithInvalidDate_isZero() {
        XCTAssertEqual(compute(nil, expires: datePlusHour, date: "nope").lifetime, 0)
    }

    func test_compute_nothing_isDefaultLifetime() {
        XCTAssertEqual(compute(nil, defaultLifetime: 3600), Freshness(lifetime: 3600, requiresRevalidation: false))
        XCTAssertEqual(compute("public", date: date, defaultLifetime: 42).lifetime, 42)
    }

    func test_compute_noCache_isZeroAndRevalidate() {
        XCTAssertEqual(compute("no-cache, max-age=100, s-maxage=100"), Freshness(lifetime: 0, requiresRevalidation: true))
    }

    func test_compute_mustOrProxyRevalidate_requiresRevalidation() {
        XCTAssertEqual(compute("max-age=5, must-revalidate"), Freshness(lifetime: 5, requiresRevalidation: true))
        XCTAssertEqual(compute("max-age=5, proxy-revalidate"), Freshness(lifetime: 5, requiresRevalidation: true))
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
