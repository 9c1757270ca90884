import EddyCore
import EddyLoop
import Glibc
import XCTest

/// Request bodies, streamed and file responses, and clients that leave mid-response.
extension HTTPServerTests {
    func testBodiesByLengthAndInChunksReachTheHandlerWhole() throws {
        let got = try exchange(["POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                                + "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nT: v\r\n\r\n"
                                + "GET /after HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 3)
        XCTAssertEqual(got.responses.map(\.body), ["hello", "hello world", "answer to /after"])
    }

    func testExpectContinueGets100BeforeTheBodyIsSent() throws {
        let got = try exchange(["PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n", "abc"], responses: 2)
        XCTAssertEqual(got.responses.map(\.status), [100, 200])
        XCTAssertEqual(got.responses.last?.body, "abc")
    }

    func testBodiesOverTheLimitAndBrokenChunksAreRefusedAndClosed() throws {
        let big = try exchange(["POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n"], responses: 1)
        XCTAssertEqual(big.responses.map(\.status), [413])
        XCTAssertTrue(big.closed)
        let huge = try exchange(["POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFF\r\n"], responses: 1)
        XCTAssertEqual(huge.responses.map(\.status), [413])
        let broken = try exchange(["POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n"], responses: 1)
        XCTAssertEqual(broken.responses.map(\.status), [400])
        XCTAssertTrue(broken.closed)
        XCTAssertEqual(seen.withLock { $0 }, [], "no refused request reached the handler")
    }

    func testAStreamedResponseIsChunkedFor11AndCloseDelimitedFor10() throws {
        let a = try exchange(["GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 2)
        XCTAssertTrue(a.responses[0].head.lowercased().contains("transfer-encoding: chunked"), a.responses[0].head)
        XCTAssertEqual(a.responses[0].body, String(repeating: "s", count: 100_000))
        XCTAssertEqual(a.responses[1].body, "answer to /next", "the connection goes on after the last chunk")
        let b = try exchange(["GET /stream HTTP/1.0\r\n\r\n"], responses: 1)
        XCTAssertEqual(b.responses.first?.body.count, 100_000)
        XCTAssertTrue(b.closed)
    }

    func testAFileGoesOutWholeAndWhenSentRuns() throws {
        let got = try exchange(["GET /file HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 1)
        XCTAssertEqual(got.responses.first.map { Array($0.body.utf8) }, HTTPServerTests.fileBytes)
        XCTAssertTrue(waitFor { self.seen.withLock { $0.contains("file sent") } })
    }

    func testAClientThatLeavesMidResponseIsReported() throws {
        let fd = connected()
        let text = "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n"
        _ = text.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
        var buf = [UInt8](repeating: 0, count: 4096)
        XCTAssertGreaterThan(recv(fd, &buf, buf.count, 0), 0)
        close(fd)
        XCTAssertTrue(waitFor { self.seen.withLock { $0.contains("hold closed") } })
    }

    /// A socket connected to the test server, reads timing out after 5 s.
    func connected(receiveBuffer: Int32? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { // before connect: the window offered follows it
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(ok, 0)
        return fd
    }

    /// Polls `condition` for up to 5 s.
    func waitFor(_ condition: () -> Bool) -> Bool {
        let end = EventLoop.monotonic() + 5
        while EventLoop.monotonic() < end {
            if condition() { return true }
            usleep(5_000)
        }
        return false
    }
}
