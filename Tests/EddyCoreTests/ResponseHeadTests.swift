import XCTest
@testable import EddyCore

final class ResponseHeadTests: XCTestCase {
    private func head(status: Int = 200, method: String = "GET", minor: Int = 1, keepAlive: Bool = true,
                      _ fields: [(String, String)] = [], prebuilt: String = "", body: Int? = nil) -> ResponseHead {
        ResponseHead(status: status, reason: "R", method: method, minor: minor, requestKeepAlive: keepAlive,
                     fields: [HTTPHeaders(fields)], prebuilt: prebuilt, prebuiltHasDate: prebuilt.hasPrefix("Date:"), bodyLength: body, date: "D")
    }

    func test_aCompleteResponse_hasItsLengthAndDate() {
        let h = head([("Content-Type", "text/plain")], body: 5)
        XCTAssertEqual(h.text, "HTTP/1.1 200 R\r\nContent-Type: text/plain\r\nDate: D\r\nContent-Length: 5\r\n\r\n")
        XCTAssertEqual(h.framing, .length(5))
        XCTAssertTrue(h.keepAlive)
    }

    func test_aLengthAmongTheFields_winsAndIsWrittenOnce() {
        let h = head([("Content-Length", "100"), ("content-length", "100")], body: 3)
        XCTAssertEqual(h.framing, .length(100))
        XCTAssertEqual(h.text.components(separatedBy: "Content-Length").count, 2)
    }

    func test_HEAD_keepsTheGETsLength_andSendsNoBody() {
        let h = head(method: "HEAD", [("Content-Length", "1000")], body: 0)
        XCTAssertTrue(h.text.contains("Content-Length: 1000\r\n"))
        XCTAssertEqual(h.framing, ResponseHead.Framing.none)
    }

    func test_bodilessStatuses_sendNoLengthAndNoBody() {
        for status in [100, 103, 204, 304] {
            let h = head(status: status, body: 0)
            XCTAssertFalse(h.text.contains("Content-Length"), "\(status)")
            XCTAssertEqual(h.framing, ResponseHead.Framing.none)
        }
    }

    func test_anUnknownLength_isChunkedFor11_andCloseDelimitedFor10() {
        let a = head()
        XCTAssertTrue(a.text.contains("Transfer-Encoding: chunked\r\n"))
        XCTAssertEqual(a.framing, .chunked)
        XCTAssertTrue(a.keepAlive)
        let b = head(minor: 0, keepAlive: true)
        XCTAssertTrue(b.text.hasPrefix("HTTP/1.0 200 R\r\n"))
        XCTAssertEqual(b.framing, .untilClose)
        XCTAssertFalse(b.keepAlive)
        XCTAssertTrue(b.text.contains("Connection: close\r\n"))
    }

    func test_persistence_isSaidWhenItIsNotTheDefault() {
        XCTAssertTrue(head(keepAlive: false, body: 0).text.contains("Connection: close\r\n"))
        XCTAssertTrue(head(minor: 0, keepAlive: true, body: 0).text.contains("Connection: keep-alive\r\n"))
        XCTAssertFalse(head(body: 0).text.contains("Connection:"))
        let closing = head([("Connection", "close")], body: 0)
        XCTAssertFalse(closing.keepAlive)
        XCTAssertEqual(closing.text.components(separatedBy: "Connection: close").count, 2, "said once")
    }

    func test_fieldsThatCouldSplitTheResponse_areDropped_andFramingFieldsAreOwned() {
        let h = head([("X-A", "ok"), ("X-B", "bad\r\nSet-Cookie: x"), ("Bad Name", "v"), ("Transfer-Encoding", "gzip"), ("Keep-Alive", "5")], body: 1)
        XCTAssertTrue(h.text.contains("X-A: ok\r\n"))
        XCTAssertFalse(h.text.contains("Set-Cookie"))
        XCTAssertFalse(h.text.contains("Bad Name"))
        XCTAssertFalse(h.text.contains("gzip"))
        XCTAssertFalse(h.text.contains("Keep-Alive"))
    }

    func test_aDateGiven_isKept() {
        XCTAssertFalse(head([("Date", "Mon")], body: 0).text.contains("Date: D"))
        XCTAssertFalse(head(prebuilt: "Date: Mon\r\n", body: 0).text.contains("Date: D"))
    }

    func test_chunks() {
        XCTAssertEqual(ResponseHead.chunkHeader(255), "ff\r\n")
        XCTAssertEqual(ResponseHead.lastChunk, "0\r\n\r\n")
    }

    func test_lengthsAndStatuses_areWrittenInDecimal() {
        for n in [0, 7, 10, 99, 16384, 67_108_864, Int.max] {
            XCTAssertTrue(head(body: n).text.contains("Content-Length: \(n)\r\n"), "\(n)")
        }
        XCTAssertTrue(head(status: 206, body: 1).text.hasPrefix("HTTP/1.1 206 R\r\n"))
        XCTAssertTrue(head(status: 100).text.hasPrefix("HTTP/1.1 100 R\r\n"))
    }

    func test_bytesAreTheText() {
        let h = head([("ETag", "\"\u{e9}\"")], prebuilt: "Server: x\r\n", body: 2)
        XCTAssertEqual(h.bytes, Array(h.text.utf8))
        XCTAssertEqual(h.text, "HTTP/1.1 200 R\r\nServer: x\r\nETag: \"\u{e9}\"\r\nDate: D\r\nContent-Length: 2\r\n\r\n")
    }
}
