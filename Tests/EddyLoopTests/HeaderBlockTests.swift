@testable import EddyLoop
import EddyCore
import XCTest

/// A hit's head in one piece (`HeaderBlock.wire`, `ServerRequest.wireHead`): every field but those
/// evhttp acts on itself goes verbatim after the reason phrase, and a field that could end the
/// line early (CR, LF, NUL) sends the block the slow way.
final class HeaderBlockTests: XCTestCase {
    func test_theFieldsEvhttpActsOnStayFields_andTheOthersAreWrittenOnceAsTheyGoOnTheWire() {
        let block = HeaderBlock(HTTPHeaders([("Cache-Control", "max-age=60"), ("Date", "Thu, 26 Nov 2026 05:00:00 GMT"),
                                             ("Content-Type", "video/mp4"), ("connection", "close"), ("Via", "1.1 parent-1")]))
        XCTAssertEqual(block.wire, "Cache-Control: max-age=60\r\nContent-Type: video/mp4\r\nVia: 1.1 parent-1\r\n")
        XCTAssertEqual(block.evhttpFields.map { String(cString: $0.name) }, ["Date", "connection"])
        XCTAssertEqual(block.cFields.count, 5, "the slow path still has every field")
    }

    func test_aFieldThatCouldEndTheLineSendsTheBlockTheSlowWay() {
        for bad in ["a\r\nSet-Cookie: x=1", "a\nb", "a\rb", "a\u{0}b"] {
            XCTAssertNil(HeaderBlock(HTTPHeaders([("X-Thing", bad)])).wire, bad.debugDescription)
            XCTAssertNil(HeaderBlock(HTTPHeaders([(bad, "v")])).wire, bad.debugDescription)
        }
        XCTAssertFalse(HeaderBlock.isVerbatim("Age", "1\r\n"))
        XCTAssertTrue(HeaderBlock.isVerbatim("Age", "1"))
        XCTAssertEqual(HeaderBlock(HTTPHeaders()).wire, "")
    }

    func test_evhttpOwnsItsFieldsWhateverTheirCase() {
        for n in ["Content-Length", "content-length", "DATE", "Connection", "Transfer-Encoding", "Proxy-Connection"] {
            XCTAssertTrue(HeaderBlock.evhttpOwns(n), n)
        }
        for n in ["Content-Type", "Age", "Cache-Status", "Content-Range", "ETag"] { XCTAssertFalse(HeaderBlock.evhttpOwns(n), n) }
    }
}
