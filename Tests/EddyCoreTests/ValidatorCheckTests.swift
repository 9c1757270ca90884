import EddyCore
import XCTest

/// Judging a conditional one-byte request's answer (a file download's refresh).
final class ValidatorCheckTests: XCTestCase {
    private let tagged = ValidatorCheck(etag: "\"abc\"", lastModified: "Tue, 01 Sep 2026 10:00:00 GMT", length: 1000)
    private let dated = ValidatorCheck(etag: nil, lastModified: "Tue, 01 Sep 2026 10:00:00 GMT", length: 1000)

    private func h(_ pairs: (String, String)...) -> HTTPHeaders { HTTPHeaders(pairs) }

    func test_theConditionPrefersTheEntityTag() {
        XCTAssertEqual(tagged.condition?.name, "If-None-Match")
        XCTAssertEqual(tagged.condition?.value, "\"abc\"")
        XCTAssertEqual(dated.condition?.name, "If-Modified-Since")
        XCTAssertNil(ValidatorCheck(etag: nil, lastModified: nil, length: 5).condition)
    }

    func test_a304IsUnchanged() {
        XCTAssertEqual(tagged.verdict(status: 304, headers: h()), .unchanged)
    }

    func test_anOriginIgnoringTheCondition_isJudgedByItsValidators() {
        XCTAssertEqual(tagged.verdict(status: 206, headers: h(("ETag", "\"abc\""), ("Content-Range", "bytes 0-0/1000"))), .unchanged)
        XCTAssertEqual(tagged.verdict(status: 206, headers: h(("ETag", "\"xyz\""), ("Content-Range", "bytes 0-0/1000"))),
                       .changed(length: 1000))
        XCTAssertEqual(tagged.verdict(status: 200, headers: h(("ETag", "\"abc\""), ("Content-Length", "1000"))), .unchanged)
        XCTAssertEqual(dated.verdict(status: 206, headers: h(("Last-Modified", "Tue, 01 Sep 2026 10:00:00 GMT"),
                                                             ("Content-Range", "bytes 0-0/1000"))), .unchanged)
        XCTAssertEqual(dated.verdict(status: 206, headers: h(("Last-Modified", "Wed, 02 Sep 2026 10:00:00 GMT"),
                                                             ("Content-Range", "bytes 0-0/1000"))), .changed(length: 1000))
    }

    func test_aNewLengthIsAChangeWhateverTheValidators() {
        XCTAssertEqual(tagged.verdict(status: 206, headers: h(("ETag", "\"abc\""), ("Content-Range", "bytes 0-0/2000"))),
                       .changed(length: 2000))
        XCTAssertEqual(tagged.verdict(status: 200, headers: h(("Content-Length", "5"))), .changed(length: 5))
    }

    func test_weakTagsProveNothingOfTheBytes() {
        let weak = ValidatorCheck(etag: "W/\"abc\"", lastModified: nil, length: 1000)
        XCTAssertEqual(weak.verdict(status: 206, headers: h(("ETag", "W/\"abc\""), ("Content-Range", "bytes 0-0/1000"))),
                       .changed(length: 1000))
        XCTAssertEqual(tagged.verdict(status: 206, headers: h(("Content-Range", "bytes 0-0/1000"))), .changed(length: 1000),
                       "the tag disappeared")
    }

    func test_withoutAnyValidatorOnlyTheLengthSpeaks() {
        let bare = ValidatorCheck(etag: nil, lastModified: nil, length: 1000)
        XCTAssertEqual(bare.verdict(status: 206, headers: h(("Content-Range", "bytes 0-0/1000"))), .unchanged)
        XCTAssertEqual(bare.verdict(status: 206, headers: h(("Content-Range", "bytes 0-0/*"))), .changed(length: nil))
    }

    func test_aPageOfAnotherTypeIsNotANewVersion() {
        let movie = ValidatorCheck(etag: "\"abc\"", lastModified: nil, length: 1000, contentType: "video/mp4")
        XCTAssertEqual(movie.verdict(status: 200, headers: h(("Content-Type", "text/html; charset=utf-8"), ("Content-Length", "512"))),
                       .otherType("text/html"))
        XCTAssertEqual(movie.verdict(status: 206, headers: h(("Content-Type", "Video/MP4"), ("ETag", "\"new\""),
                                                             ("Content-Range", "bytes 0-0/3000"))), .changed(length: 3000))
    }

    func test_errorsAndRedirectsSayNothing() {
        XCTAssertEqual(tagged.verdict(status: 404, headers: h()), .failed(status: 404))
        XCTAssertEqual(tagged.verdict(status: 302, headers: h(("Location", "/portal"))), .failed(status: 302))
        XCTAssertEqual(tagged.verdict(status: 503, headers: h()), .failed(status: 503))
    }
}
