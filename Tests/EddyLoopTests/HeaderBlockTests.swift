@testable import EddyLoop
import EddyCore
import XCTest

/// A hit's head in one piece (`HeaderBlock.wire`): every field but those the connection acts on
/// itself goes verbatim, and a field that could end the line early (CR, LF, NUL) sends the block
/// the slow way.
final class HeaderBlockTests: XCTestCase {
    func test_theFieldsTheConnectionActsOnStayFields_andTheOthersAreWrittenOnceAsTheyGoOnTheWire() {
        let block = HeaderBlock(HTTPHeaders([("Cache-Control", "max-age=60"), ("Date", "Thu, 26 Nov 2026 05:00:00 GMT"),
                                             ("Content-Type", "video/mp4"), ("connection", "close"), ("Via", "1.1 parent-1")]))
        XCTAssertEqual(block.wire, "Cache-Control: max-age=60\r\nContent-Type: video/mp4\r\nVia: 1.1 parent-1\r\n")
        XCTAssertEqual(block.ownedFields.map(\.name), ["Date", "connection"])
    }

    func test_aFieldThatCouldEndTheLineSendsTheBlockTheSlowWay() {
        for bad in ["a\r\nSet-Cookie: x=1", "a\nb", "a\rb", "a\u{0}b"] {
            XCTAssertNil(HeaderBlock(HTTPHeaders([("X-Thing", bad)])).wire, bad.debugDescription)
            XCTAssertNil(HeaderBlock(HTTPHeaders([(bad, "v")])).wire, bad.debugDescription)
        }
        XCTAssertEqual(HeaderBlock(HTTPHeaders()).wire, "")
    }

    func test_theConnectionOwnsItsFieldsWhateverTheirCase() {
        for n in ["Content-Length", "content-length", "DATE", "Connection", "Transfer-Encoding", "Proxy-Connection", "Keep-Alive"] {
            XCTAssertTrue(HeaderBlock.connectionOwns(n), n)
        }
        for n in ["Content-Type", "Age", "Cache-Status", "Content-Range", "ETag"] { XCTAssertFalse(HeaderBlock.connectionOwns(n), n) }
    }
}
