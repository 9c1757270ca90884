import EddyCore
import XCTest

/// RFC 9112 section 6.3: a response head that frames its body two ways is refused.
final class ResponseFramingTests: XCTestCase {
    private func problem(_ f: [(String, String)]) -> String? { ResponseFraming.problem(HTTPHeaders(f)) }

    func test_problem_oneLengthOrChunkedOrNeither_isNone() {
        XCTAssertNil(problem([("Content-Length", "42")]))
        XCTAssertNil(problem([("Transfer-Encoding", "chunked")]))
        XCTAssertNil(problem([]))
        XCTAssertNil(problem([("Content-Length", "0")]))
    }

    func test_problem_repeatsOfOneLength_areThatLength() {
        XCTAssertNil(problem([("Content-Length", "42, 42")]))
        XCTAssertNil(problem([("Content-Length", "42"), ("content-length", "42")]))
        XCTAssertEqual(ResponseFraming.length(HTTPHeaders([("Content-Length", "42 , 42")])), 42)
    }

    func test_problem_conflictingLengths_isAnError() {
        XCTAssertEqual(problem([("Content-Length", "2"), ("Content-Length", "109")]), "conflicting Content-Length values")
        XCTAssertEqual(problem([("Content-Length", "2, 109")]), "conflicting Content-Length values")
    }

    func test_problem_lengthBesideTransferEncoding_isAnError() {
        XCTAssertEqual(problem([("Content-Length", "3"), ("Transfer-Encoding", "chunked")]), "both Content-Length and Transfer-Encoding")
        XCTAssertEqual(problem([("Transfer-Encoding", "chunked"), ("Content-Length", "3")]), "both Content-Length and Transfer-Encoding")
    }

    func test_problem_invalidLength_isAnError() {
        for bad in ["2x", "-1", "", "0x10", "1 2", "+5", "4,"] {
            XCTAssertNotNil(problem([("Content-Length", bad)]), bad)
        }
    }
}
