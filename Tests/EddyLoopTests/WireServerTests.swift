import EddyCore
import EddyLoop
import Glibc
import XCTest

/// eddy's own connection layer on a real loop thread and real loopback sockets: each request
/// gets its own response, in order, with the framing and persistence RFC 9112 asks for.
final class WireServerTests: XCTestCase {
    private var worker: LoopThread!
    private var port = 0
    private let seen = Locked<[String]>([])

    override func setUpWithError() throws {
        let holder = Locked<(WireServer?, Int)>((nil, 0))
        let seen = self.seen
        worker = try LoopThread(name: "wire-test") { loop, _ in
            let server = try WireServer(loop: loop, host: "127.0.0.1", port: 0)
            server.handler = { request in
                seen.withLock { $0.append(request.head.method + " " + request.head.target) }
                let text = Array(("answer to " + request.head.target).utf8)
                let bytes = SharedBytes(count: text.count) { $0.copyBytes(from: text); return true }!
                request.send(status: 200, fields: "Content-Type: text/plain\r\n", bytes: bytes, offset: 0, length: text.count)
            }
            holder.withLock { $0 = (server, server.boundPort) }
        }
        port = holder.withLock { $0.1 }
        // The server lives as long as the loop: keep it referenced from the loop's thread.
        worker.mailbox.post { _ = holder.withLock { $0.0 } }
        self.holder = holder
    }

    private var holder: Locked<(WireServer?, Int)>?

    override func tearDown() {
        worker.mailbox.post { [holder] in holder?.withLock { $0.0 = nil } }
        worker.stop()
    }

    /// Sends `chunks` on a new connection (each as its own write) and reads until the server
    /// closes or `responses` complete responses arrived; 5 s at most.
    private func exchange(_ chunks: [String], responses: Int, bodiless: Bool = false) throws -> (responses: [(status: Int, head: String, body: String)], closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(ok, 0)
        for c in chunks {
            _ = c.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
            if chunks.count > 1 { usleep(2_000) } // separate segments
        }
        var data: [UInt8] = [], out: [(Int, String, String)] = [], closed = false
        var buf = [UInt8](repeating: 0, count: 65536)
        while out.count < responses {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { closed = n == 0; break }
            data += buf[0..<n]
            while let r = Self.response(&data, bodiless: bodiless) { out.append(r) }
        }
        if out.count == responses && !closed {
            // Anything more, or a close, within a moment.
            var tv = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            closed = recv(fd, &buf, buf.count, 0) == 0
        }
        return (out, closed)
    }

    /// Takes one complete response off the front of `data`.
    private static func response(_ data: inout [UInt8], bodiless: Bool) -> (Int, String, String)? {
        let text = String(decoding: data, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = String(text[..<end.lowerBound])
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .map { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))! } ?? 0
        let headBytes = text[..<end.upperBound].utf8.count
        let bodyLength = bodiless ? 0 : length
        guard data.count >= headBytes + bodyLength else { return nil }
        let body = String(decoding: data[headBytes..<headBytes + bodyLength], as: UTF8.self)
        data.removeFirst(headBytes + bodyLength)
        let status = Int(head.split(separator: " ")[1])!
        return (status, head, body)
    }

    func testPipelinedRequestsAreAnsweredInOrderOnOneConnection() throws {
        let got = try exchange(["GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 3)
        XCTAssertEqual(got.responses.map(\.body), ["answer to /a", "answer to /b", "answer to /c"])
        XCTAssertEqual(got.responses.map(\.status), [200, 200, 200])
        XCTAssertFalse(got.closed, "HTTP/1.1 persists")
        XCTAssertTrue(got.responses[0].head.contains("\r\nDate: "), got.responses[0].head)
        XCTAssertEqual(seen.withLock { $0 }, ["GET /a", "GET /b", "GET /c"])
    }

    func testAHeadTrickledByteByByteIsAnswered() throws {
        let text = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
        let got = try exchange(text.map { String($0) }, responses: 1)
        XCTAssertEqual(got.responses.map(\.body), ["answer to /slow"])
    }

    func testHTTP10IsAnsweredInKindAndClosedUnlessKeepAlive() throws {
        let plain = try exchange(["GET /old HTTP/1.0\r\n\r\n"], responses: 1)
        XCTAssertTrue(plain.responses[0].head.hasPrefix("HTTP/1.0 200 OK\r\n"), plain.responses[0].head)
        XCTAssertTrue(plain.responses[0].head.contains("\r\nConnection: close"))
        XCTAssertTrue(plain.closed)
        let kept = try exchange(["GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"], responses: 1)
        XCTAssertTrue(kept.responses[0].head.contains("\r\nConnection: keep-alive"))
        XCTAssertFalse(kept.closed)
    }

    func testConnectionCloseIsHonoured() throws {
        let got = try exchange(["GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 2)
        XCTAssertEqual(got.responses.map(\.body), ["answer to /x"])
        XCTAssertTrue(got.closed)
        XCTAssertEqual(seen.withLock { $0 }, ["GET /x"])
    }

    func testAMalformedHeadIsRefusedAndTheConnectionClosed() throws {
        let got = try exchange(["GET /a HTTP/1.1\r\nHost : x\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"], responses: 2)
        XCTAssertEqual(got.responses.map(\.status), [400])
        XCTAssertTrue(got.responses[0].body.contains("whitespace before the colon"), got.responses[0].body)
        XCTAssertTrue(got.closed)
        XCTAssertEqual(seen.withLock { $0 }, [], "neither request reached the handler")
    }

    func testAHEADResponseHasItsLengthButNoBody() throws {
        let got = try exchange(["HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], responses: 1, bodiless: true)
        XCTAssertEqual(got.responses.map(\.status), [200])
        XCTAssertTrue(got.responses[0].head.contains("\r\nContent-Length: 12\r\n"), got.responses[0].head)
        XCTAssertTrue(got.closed, "closed with nothing after the head")
    }
}
