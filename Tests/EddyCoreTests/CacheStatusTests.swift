import EddyCore
import XCTest

/// RFC 9211.
final class CacheStatusTests: XCTestCase {
    func test_description_hit_isHit() {
        XCTAssertEqual(CacheStatus().description, "eddy; hit")
        XCTAssertEqual(CacheStatus().logWord, "HIT")
    }

    func test_description_forward_listsFwdParameter() {
        XCTAssertEqual(CacheStatus(forward: .miss).description, "eddy; fwd=miss")
        XCTAssertEqual(CacheStatus(forward: .uriMiss).description, "eddy; fwd=uri-miss")
        XCTAssertEqual(CacheStatus(forward: .partial).description, "eddy; fwd=partial")
        XCTAssertEqual(CacheStatus(forward: .stale).description, "eddy; fwd=stale")
        XCTAssertEqual(CacheStatus(forward: .bypass).description, "eddy; fwd=bypass")
        XCTAssertEqual(CacheStatus(forward: .method).description, "eddy; fwd=method")
        XCTAssertEqual(CacheStatus(forward: .request).description, "eddy; fwd=request")
    }

    func test_description_allParameters_inOrder() {
        var s = CacheStatus(forward: .miss)
        s.forwardStatus = 200
        s.ttl = 3600
        s.stored = true
        s.detail = "range"
        XCTAssertEqual(s.description, "eddy; fwd=miss; fwd-status=200; ttl=3600; stored; detail=range")
    }

    func test_description_hitWithTTL_hasNoFwd() {
        var s = CacheStatus()
        s.ttl = -5
        XCTAssertEqual(s.description, "eddy; hit; ttl=-5")
    }

    func test_description_detailWithQuoteOrBackslash_isEscaped() {
        // RFC 8941 section 3.3.3: in an sf-string, DQUOTE and backslash are escaped with a backslash.
        var s = CacheStatus(forward: .bypass)
        s.detail = "vary \"Cookie\" \\ x"
        XCTAssertEqual(s.description, "eddy; fwd=bypass; detail=\"vary \\\"Cookie\\\" \\\\ x\"")
    }

    func test_description_detailWithControlOrNonASCII_isSanitized() {
        // sf-string allows only %x20-7E.
        var s = CacheStatus(forward: .bypass)
        s.detail = "a\nb\u{E9}"
        XCTAssertEqual(s.description, "eddy; fwd=bypass; detail=\"a?b?\"")
    }

    func test_logWord_forward_isUppercasedRawValue() {
        XCTAssertEqual(CacheStatus(forward: .miss).logWord, "MISS")
        XCTAssertEqual(CacheStatus(forward: .uriMiss).logWord, "URI-MISS")
        XCTAssertEqual(CacheStatus(forward: .partial).logWord, "PARTIAL")
        XCTAssertEqual(CacheStatus(forward: .stale).logWord, "STALE")
        XCTAssertEqual(CacheStatus(forward: .bypass).logWord, "BYPASS")
    }
}
