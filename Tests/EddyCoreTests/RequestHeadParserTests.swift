import XCTest
@testable import EddyCore

final class RequestHeadParserTests: XCTestCase {
    private func parse(_ text: String, limits: RequestHeadParser.Limits = .init()) -> RequestHeadParser.Outcome {
        var p = RequestHeadParser(limits: limits)
        return Array(text.utf8).withUnsafeBytes { p.parse($0) }
    }

    private func status(_ text: String, limits: RequestHeadParser.Limits = .init()) -> Int? {
        if case let .invalid(status, _) = parse(text, limits: limits) { return status }
        return nil
    }

    private func head(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> RequestHead? {
        guard case let .head(h, _) = parse(text) else { XCTFail("no head: \(parse(text))", file: file, line: line); return nil }
        return h
    }

    /// Feeds `text` one prefix at a time (`step` bytes more each), as a connection would.
    private func trickle(_ text: String, step: Int, limits: RequestHeadParser.Limits = .init()) -> RequestHeadParser.Outcome {
        let bytes = Array(text.utf8)
        var p = RequestHeadParser(limits: limits)
        var n = 0
        while true {
            n = min(bytes.count, n + step)
            let out = bytes[0..<n].withUnsafeBytes { p.parse($0) }
            if out != .incomplete || n == bytes.count { return out }
        }
    }

    func test_parse_aPlainGet_givesItsParts() {
        let text = "GET /a/b.ts?x=1 HTTP/1.1\r\nHost: example.com\r\nRange:  bytes=0-99 \r\nX-Empty:\r\n\r\n"
        guard case let .head(h, length) = parse(text + "NEXT") else { return XCTFail() }
        XCTAssertEqual(length, text.utf8.count, "the head ends at its blank line")
        XCTAssertEqual(h.method, "GET")
        XCTAssertEqual(h.target, "/a/b.ts?x=1")
        XCTAssertEqual(h.version, "HTTP/1.1")
        XCTAssertEqual(h.headers, HTTPHeaders([("Host", "example.com"), ("Range", "bytes=0-99"), ("X-Empty", "")]))
        XCTAssertEqual(h.body, .none)
        XCTAssertTrue(h.keepAlive)
        XCTAssertFalse(h.expectsContinue)
    }

    func test_parse_stopsAtTheFirstHead_soPipelinedRequestsFollowIt() {
        let one = "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n", two = "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
        guard case let .head(h, length) = parse(one + two) else { return XCTFail() }
        XCTAssertEqual(h.target, "/1")
        XCTAssertEqual(length, one.utf8.count)
    }

    func test_parse_emptyLinesBeforeTheRequest_areSkipped_aFewOnly() {
        XCTAssertEqual(head("\r\n\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")?.target, "/")
        XCTAssertEqual(status(String(repeating: "\r\n", count: 5) + "GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 400)
        XCTAssertEqual(status("\rGET / HTTP/1.1\r\nHost: x\r\n\r\n"), 400)
    }

    func test_parse_bareLFLineEnds_areAccepted_asRFC9112Section2_2Allows() {
        XCTAssertEqual(head("GET / HTTP/1.1\nHost: x\n\n")?.headers["Host"], "x")
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\n\r\n")?.headers["Host"], "x")
    }

    func test_parse_aBareCR_isRefused() {
        XCTAssertEqual(status("GET / HTTP/1.1\rHost: x\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n"), 400)
    }

    func test_parse_incompleteHeads_waitForMore() {
        for text in ["", "G", "GET / HTTP/1.1\r\n", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r", "\r"] {
            XCTAssertEqual(parse(text), .incomplete, text.debugDescription)
        }
    }

    func test_parse_whatCanNotBeHTTP1_isRefusedBeforeItsEnd() {
        // A TLS ClientHello, HTTP/0.9, binary: refused at once rather than at the header timeout.
        XCTAssertEqual(status("\u{16}\u{03}\u{01}\u{02}\u{00}"), 400)
        XCTAssertEqual(status("GET /\r\n"), 400)
        XCTAssertEqual(status("GET /index.html\n"), 400)
        XCTAssertEqual(status("\u{00}GET / HTTP/1.1"), 400)
        XCTAssertEqual(status("\r\n{\"json\": 1}"), 400)
        // Still arriving, or a head that may yet be whole: wait.
        for text in ["GET /", "GET / HTTP/1.1", "GET / HTTP/1.1\r\nHost", "\r\n", "\r\nGET"] {
            XCTAssertEqual(parse(text), .incomplete, text.debugDescription)
        }
        // An HTTP/2 preface is a whole head naming HTTP/2.0: 505, as before.
        XCTAssertEqual(status("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 505)
    }

    func test_parse_obsTextInAValue_keepsItsBytes() {
        let bytes: [UInt8] = Array("GET / HTTP/1.1\r\nHost: x\r\nX-B: a".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8)
        var p = RequestHeadParser(limits: .init())
        guard case let .head(h, _) = bytes.withUnsafeBytes({ p.parse($0) }) else { return XCTFail("no head") }
        XCTAssertEqual(FieldText.encode(h.headers["X-B"]!), [0x61, 0xFF, 0xFE])
    }

    func test_parse_givesTheSameOutcome_howeverTheBytesArrive() {
        let cases = ["GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n\r\nrest", "\r\nPOST /p HTTP/1.0\nContent-Length: 3\n\nabc",
                     "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\n\r\n"]
        var small = RequestHeadParser.Limits()
        small.maxHeadBytes = 128
        small.maxTargetBytes = 64
        for text in cases {
            for limits in [RequestHeadParser.Limits(), small] {
                var whole = RequestHeadParser(limits: limits)
                let expected = Array(text.utf8).withUnsafeBytes { whole.parse($0) }
                for step in 1...7 { XCTAssertEqual(trickle(text, step: step, limits: limits), expected, "\(text.debugDescription) by \(step)") }
            }
        }
    }

    func test_parse_requestLine_isStrict() {
        XCTAssertEqual(status("GET  / HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "two spaces")
        XCTAssertEqual(status("GET / HTTP/1.1 \r\nHost: x\r\n\r\n"), 400, "trailing space")
        XCTAssertEqual(status("G(T / HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "method not a token")
        XCTAssertEqual(status(" GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 400)
        XCTAssertEqual(status("GET /\u{7F} HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "DEL in the target")
        XCTAssertEqual(status("GET /é HTTP/1.1\r\nHost: x\r\n\r\n"), 400, "non-ASCII target")
        XCTAssertEqual(status("GET /\r\n\r\n"), 400, "HTTP/0.9")
        XCTAssertEqual(status("GET / http/1.1\r\nHost: x\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.10\r\nHost: x\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.9\r\nHost: x\r\n\r\n"), 505)
        XCTAssertEqual(status("GET / HTTP/2.0\r\nHost: x\r\n\r\n"), 505)
        XCTAssertEqual(head("M-SEARCH * HTTP/1.1\r\nHost: x\r\n\r\n")?.method, "M-SEARCH")
        XCTAssertEqual(head("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")?.target, "example.com:443")
        XCTAssertEqual(head("GET http://a.example/x HTTP/1.1\r\nHost: a.example\r\n\r\n")?.target, "http://a.example/x")
    }

    func test_parse_fieldLines_areStrict() {
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n"), 400, "obs-fold")
        XCTAssertEqual(status("GET / HTTP/1.1\r\n\tHost: x\r\n\r\n"), 400, "whitespace after the request line")
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost : x\r\n\r\n"), 400, "whitespace before the colon")
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nA(b: c\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nA: b\u{0}c\r\n\r\n"), 400, "NUL in a value")
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\r\nA: b\tc\r\n\r\n")?.headers["A"], "b\tc", "HTAB is allowed")
    }

    func test_parse_framing_refusesWhatCouldBeReadTwoWays() {
        let h = "GET / HTTP/1.1\r\nHost: x\r\n"
        XCTAssertEqual(status(h + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"), 400)
        XCTAssertEqual(head(h + "Content-Length: 5\r\nContent-Length: 5\r\n\r\n")?.body, .length(5))
        XCTAssertEqual(status(h + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), 400, "CL and TE")
        XCTAssertEqual(status(h + "Transfer-Encoding: xchunked\r\n\r\n"), 400)
        XCTAssertEqual(status(h + "Transfer-Encoding: gzip, chunked\r\n\r\n"), 400)
        XCTAssertEqual(status(h + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"), 400)
        XCTAssertEqual(head(h + "Transfer-Encoding: Chunked\r\n\r\n")?.body, .chunked)
        XCTAssertEqual(status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400)
        XCTAssertEqual(status(h + "Content-Length: -1\r\n\r\n"), 400)
        XCTAssertEqual(status(h + "Content-Length: 1e3\r\n\r\n"), 400)
        XCTAssertEqual(status(h + "Content-Length: 99999999999999999999999\r\n\r\n"), 413)
        XCTAssertEqual(head(h + "Content-Length: 0\r\n\r\n")?.body, RequestHead.Body.none)
        XCTAssertEqual(status("HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 38\r\n\r\n"), 400, "HEAD with a body")
        XCTAssertEqual(status("GET / HTTP/1.1\r\n\r\n"), 400, "HTTP/1.1 without Host")
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"), 400)
        XCTAssertNotNil(head("GET / HTTP/1.0\r\n\r\n"), "HTTP/1.0 needs no Host")
    }

    func test_parse_limits_giveTheirStatuses() {
        var limits = RequestHeadParser.Limits()
        limits.maxBodyBytes = 100
        XCTAssertEqual(status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n", limits: limits), 413)
        XCTAssertEqual(status("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414)
        XCTAssertEqual(status("GET /" + String(repeating: "a", count: 20000)), 414, "judged before the line ends")
        XCTAssertEqual(status(String(repeating: "G", count: 20000)), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\nBig: " + String(repeating: "v", count: 17000) + "\r\n\r\n"), 431)
        let many = (0..<101).map { "F\($0): v\r\n" }.joined()
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: x\r\n" + many + "\r\n"), 431)
        XCTAssertNotNil(head("GET / HTTP/1.1\r\n" + (0..<99).map { "F\($0): v\r\n" }.joined() + "Host: x\r\n\r\n"))
    }

    func test_parse_persistence_followsTheVersionAndConnection() {
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\r\n\r\n")?.keepAlive, true)
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n")?.keepAlive, false)
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\r\nConnection: te, close\r\n\r\n")?.keepAlive, false)
        XCTAssertEqual(head("GET / HTTP/1.0\r\n\r\n")?.keepAlive, false)
        XCTAssertEqual(head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.keepAlive, true)
    }

    func test_parse_expectations_only100Continue() {
        XCTAssertEqual(head("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-Continue\r\n\r\n")?.expectsContinue, true)
        XCTAssertEqual(head("PUT / HTTP/1.0\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")?.expectsContinue, false)
        XCTAssertEqual(head("GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n")?.expectsContinue, false, "no body to wait for")
        XCTAssertEqual(status("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: teapot\r\n\r\n"), 417)
    }

    func test_wire_parsesBackToTheSameHead() {
        guard let h = head("POST /u?q HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nA: b c\r\n\r\n") else { return }
        XCTAssertEqual(head(h.wire), h)
    }

    func test_reset_startsANewSearch() {
        var p = RequestHeadParser()
        XCTAssertEqual(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8).withUnsafeBytes { p.parse($0) }, .incomplete)
        p.reset()
        guard case .head = Array("GET /b HTTP/1.1\r\nHost: y\r\n\r\n".utf8).withUnsafeBytes({ p.parse($0) }) else { return XCTFail() }
    }
}
