import EddyCore
import XCTest

/// RFC 9110 section 13.
final class PreconditionsTests: XCTestCase {
    private let etag = "\"v1\""
    private let lm = "Sun, 06 Nov 1994 08:49:37 GMT"
    private let before = "Sun, 06 Nov 1994 08:49:36 GMT"
    private let after = "Sun, 06 Nov 1994 08:49:38 GMT"

    private func eval(_ fields: [(String, String)], etag: String? = "\"v1\"", lastModified: String? = "Sun, 06 Nov 1994 08:49:37 GMT") -> Preconditions.Outcome {
        Preconditions.evaluate(headers: HTTPHeaders(fields), etag: etag, lastModified: lastModified)
    }

    func test_evaluate_noConditionalHeaders_proceeds() {
        XCTAssertEqual(eval([]), .proceed)
        XCTAssertEqual(eval([("Range", "bytes=0-1")], etag: nil, lastModified: nil), .proceed)
    }

    // MARK: If-Match (strong comparison)

    func test_evaluate_ifMatchSameStrongTag_proceeds() {
        XCTAssertEqual(eval([("If-Match", etag)]), .proceed)
        XCTAssertEqual(eval([("if-match", "\"other\", \"v1\"")]), .proceed)
    }

    func test_evaluate_ifMatchDifferentTag_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Match", "\"v2\"")]), .preconditionFailed)
    }

    func test_evaluate_ifMatchWeakTag_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Match", "W/\"v1\"")]), .preconditionFailed)
        XCTAssertEqual(eval([("If-Match", "\"v1\"")], etag: "W/\"v1\""), .preconditionFailed)
    }

    func test_evaluate_ifMatchWithoutStoredTag_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Match", etag)], etag: nil), .preconditionFailed)
    }

    func test_evaluate_ifMatchStar_proceeds() {
        XCTAssertEqual(eval([("If-Match", "*")]), .proceed)
    }

    // MARK: If-Unmodified-Since

    func test_evaluate_ifUnmodifiedSinceNotModified_proceeds() {
        XCTAssertEqual(eval([("If-Unmodified-Since", lm)]), .proceed)
        XCTAssertEqual(eval([("If-Unmodified-Since", after)]), .proceed)
    }

    func test_evaluate_ifUnmodifiedSinceModifiedAfter_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Unmodified-Since", before)]), .preconditionFailed)
    }

    func test_evaluate_ifUnmodifiedSinceWithoutLastModified_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Unmodified-Since", after)], lastModified: nil), .preconditionFailed)
    }

    func test_evaluate_ifUnmodifiedSinceInvalidDate_isIgnored() {
        XCTAssertEqual(eval([("If-Unmodified-Since", "yesterday")]), .proceed)
    }

    func test_evaluate_ifMatchPresent_ifUnmodifiedSinceIgnored() {
        XCTAssertEqual(eval([("If-Match", etag), ("If-Unmodified-Since", before)]), .proceed)
    }

    // MARK: If-None-Match (weak comparison)

    func test_evaluate_ifNoneMatchSameTag_isNotModified() {
        XCTAssertEqual(eval([("If-None-Match", etag)]), .notModified)
        XCTAssertEqual(eval([("If-None-Match", "\"a\", \"v1\"")]), .notModified)
    }

    func test_evaluate_ifNoneMatchWeakAgainstStrong_isNotModified() {
        XCTAssertEqual(eval([("If-None-Match", "W/\"v1\"")]), .notModified)
        XCTAssertEqual(eval([("If-None-Match", "\"v1\"")], etag: "W/\"v1\""), .notModified)
    }

    func test_evaluate_ifNoneMatchDifferentTag_proceeds() {
        XCTAssertEqual(eval([("If-None-Match", "\"v2\"")]), .proceed)
        XCTAssertEqual(eval([("If-None-Match", "\"v1\"")], etag: nil), .proceed)
    }

    func test_evaluate_ifNoneMatchStar_isNotModified() {
        XCTAssertEqual(eval([("If-None-Match", "*")]), .notModified)
    }

    // MARK: If-Modified-Since

    func test_evaluate_ifModifiedSinceNotModified_isNotModified() {
        XCTAssertEqual(eval([("If-Modified-Since", lm)]), .notModified)
        XCTAssertEqual(eval([("If-Modified-Since", after)]), .notModified)
    }

    func test_evaluate_ifModifiedSinceModifiedAfter_proceeds() {
        XCTAssertEqual(eval([("If-Modified-Since", before)]), .proceed)
    }

    func test_evaluate_ifModifiedSinceWithoutLastModifiedOrInvalid_proceeds() {
        XCTAssertEqual(eval([("If-Modified-Since", after)], lastModified: nil), .proceed)
        XCTAssertEqual(eval([("If-Modified-Since", "0")]), .proceed)
    }

    func test_evaluate_ifNoneMatchPresent_ifModifiedSinceIgnored() {
        XCTAssertEqual(eval([("If-None-Match", "\"v2\""), ("If-Modified-Since", after)]), .proceed)
    }

    // MARK: Order (section 13.2.2)

    func test_evaluate_ifMatchFailsAndIfNoneMatchMatches_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-None-Match", etag), ("If-Match", "\"v2\"")]), .preconditionFailed)
    }

    func test_evaluate_ifUnmodifiedSinceFailsAndIfModifiedSinceMatches_isPreconditionFailed() {
        XCTAssertEqual(eval([("If-Modified-Since", after), ("If-Unmodified-Since", before)]), .preconditionFailed)
    }

    func test_evaluate_ifMatchPassesAndIfNoneMatchMatches_isNotModified() {
        XCTAssertEqual(eval([("If-Match", etag), ("If-None-Match", etag)]), .notModified)
    }

    // MARK: rangeApplies (If-Range, section 13.1.5)

    func test_rangeApplies_noIfRange_isTrue() {
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: nil, etag: etag, lastModified: lm))
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: "  ", etag: nil, lastModified: nil))
    }

    func test_rangeApplies_strongETagMatch_isTrue() {
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: etag, etag: etag, lastModified: nil))
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: " \"v1\" ", etag: etag, lastModified: nil))
    }

    func test_rangeApplies_strongETagMismatch_isFalse() {
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: "\"v2\"", etag: etag, lastModified: lm))
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: etag, etag: nil, lastModified: lm))
    }

    func test_rangeApplies_weakETag_neverMatches() {
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: "W/\"v1\"", etag: "W/\"v1\"", lastModified: nil))
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: "W/\"v1\"", etag: etag, lastModified: nil))
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: etag, etag: "W/\"v1\"", lastModified: nil))
    }

    func test_rangeApplies_malformedETag_isFalse() {
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: "\"v1", etag: etag, lastModified: lm))
    }

    func test_rangeApplies_dateEqualToLastModified_isTrue() {
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: lm, etag: etag, lastModified: lm))
        // Same instant in another accepted format is still an exact match.
        XCTAssertTrue(Preconditions.rangeApplies(ifRange: "Sunday, 06-Nov-94 08:49:37 GMT", etag: nil, lastModified: lm))
    }

    func test_rangeApplies_dateNotExactlyLastModified_isFalse() {
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: after, etag: etag, lastModified: lm))
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: before, etag: etag, lastModified: lm))
    }

    func test_rangeApplies_dateWithoutLastModifiedOrInvalid_isFalse() {
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: lm, etag: etag, lastModified: nil))
        XCTAssertFalse(Preconditions.rangeApplies(ifRange: "not a date", etag: etag, lastModified: lm))
    }
}
