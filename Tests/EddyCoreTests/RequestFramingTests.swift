import XCTest
@testable import EddyCore

final class RequestFramingTests: XCTestCase {
    private func status(_ fields: [(String, String)], major: Int = 1, minor: Int = 1) -> Int? {
        RequestFraming.problem(major: major, minor: minor, headers: HTTPHeaders(fields))?.status
    }

    func test_problem_ordinaryRequests_areAccepted() {
        XCTAssertNil(status([("Host", "x")]))
        XCTAssertNil(status([], major: 1, minor: 0))
        XCTAssertNil(status([("Host", "x"), ("Content-Length", "5")]))
        XCTAssertNil(status([("Host", "x"), ("Content-Length", "5"), ("content-length", "5")]))
        XCTAssertNil(status([("Host", "x"), ("Content-Length", "5, 5")]))
        XCTAssertNil(status([("Host", "x"), ("Transfer-Encoding", "Chunked")]))
    }

    func test_problem_headAndTraceWithABody_get400_andWithoutOneAreFine() {
        let m = { (method: String, fields: [(String, String)]) in
            RequestFraming.problem(major: 1, minor: 1, headers: HTTPHeaders([("Host", "x")] + fields), method: method)?.status
        }
        XCTAssertEqual(m("HEAD", [("Content-Length", "5")]), 400)
        XCTAssertEqual(m("TRACE", [("Transfer-Encoding", "chunked")]), 400)
        XCTAssertNil(m("HEAD", [("Content-Length", "0")]))
        XCTAssertNil(m("HEAD", [("Content-Length", "00")]))
        XCTAssertNil(m("HEAD", []))
        XCTAssertNil(m("GET", [("Content-Length", "5")]), "libevent reads a GET's body")
        XCTAssertNil(m("POST", [("Transfer-Encoding", "chunked")]))
    }

    func test_problem_versions_otherThan10And11_get505() {
        XCTAssertEqual(status([("Host", "x")], major: 1, minor: 9), 505)
        XCTAssertEqual(status([("Host", "x")], major: 2, minor: 0), 505)
        XCTAssertEqual(status([("Host", "x")], major: 0, minor: 9), 505)
        XCTAssertEqual(status([("Host", "x")], major: 1, minor: -1), 505)
    }

    func test_problem_framingAmbiguities_get400() {
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "5"), ("Content-Length", "6")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "5, 6")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "-5")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Content-Length", "")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Transfer-Encoding", "xchunked")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Transfer-Encoding", "gzip, chunked")]), 400)
        XCTAssertEqual(status([("Host", "x"), ("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]), 400)
        XCTAssertEqual(status([("Transfer-Encoding", "chunked")], major: 1, minor: 0), 400, "faulty framing in HTTP/1.0 (RFC 9112 section 6.1)")
    }

    func test_problem_hostRules_followRFC9112Section3_2() {
        XCTAssertEqual(status([]), 400)
        XCTAssertEqual(status([("Host", "a"), ("Host", "b")]), 400)
        XCTAssertEqual(status([("Host ", "a")]), 400, "a space before the colon")
        XCTAssertEqual(status([("Ho st", "a"), ("Host", "a")]), 400)
        XCTAssertEqual(status([("", "a"), ("Host", "a")]), 400)
    }
}
