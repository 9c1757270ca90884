@testable import EddyCore
import XCTest

/// RFC 9110 section 15.2, RFC 8297.
final class InterimHeadTests: XCTestCase {
    private func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    func test_earlyHints_keepsEndToEndFieldsInOrder() {
        var h = HTTPHeaders()
        h.add("Link", "</a.css>; rel=preload")
        h.add("Link", "</b.js>; rel=preload")
        XCTAssertEqual(text(InterimHead.encode(status: 103, headers: h, clientMajor: 1, clientMinor: 1)),
                       "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nLink: </b.js>; rel=preload\r\n\r\n")
    }

    func test_hopByHopAndConnectionNamedFields_areDropped() {
        var h = HTTPHeaders()
        h.add("Connection", "X-Hop")
        h.add("X-Hop", "1")
        h.add("Keep-Alive", "timeout=5")
        h.add("Link", "</a.css>; rel=preload")
        XCTAssertEqual(text(InterimHead.encode(status: 103, headers: h, clientMajor: 1, clientMinor: 1)),
                       "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n")
    }

    func test_badNamesAndControlCharacters_areDropped() {
        var h = HTTPHeaders()
        h.add("Bad Name", "x")
        h.add("X-Ctl", "a\u{1}b")
        h.add("X-Tab", "a\tb")
        XCTAssertEqual(text(InterimHead.encode(status: 103, headers: h, clientMajor: 1, clientMinor: 1)),
                       "HTTP/1.1 103 Early Hints\r\nX-Tab: a\tb\r\n\r\n")
    }

    func test_http10Client_getsNone() {
        XCTAssertNil(InterimHead.encode(status: 103, headers: HTTPHeaders(), clientMajor: 1, clientMinor: 0))
        XCTAssertNotNil(InterimHead.encode(status: 103, headers: HTTPHeaders(), clientMajor: 2, clientMinor: 0))
    }

    func test_onlyForwardedStatuses() {
        for s in [99, 100, 101, 200, 304] {
            XCTAssertNil(InterimHead.encode(status: s, headers: HTTPHeaders(), clientMajor: 1, clientMinor: 1), "\(s)")
        }
        XCTAssertEqual(text(InterimHead.encode(status: 102, headers: HTTPHeaders(), clientMajor: 1, clientMinor: 1)),
                       "HTTP/1.1 102 Interim\r\n\r\n")
    }
}
