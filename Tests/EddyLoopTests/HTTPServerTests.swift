import EddyCore
import EddyLoop
import Glibc
import XCTest

/// eddy's own connection layer on a real loop thread and real loopback sockets: each request
/// gets its own response, in order, with the framing and persistence RFC 9112 asks for.
final class HTTPServerTests: XCTestCase {
    private var worker: LoopThread!
    var port = 0
    let seen = Locked<[String]>([])

    override func setUpWithError() throws {
        XCTAssertTrue(FileManagerless.write(HTTPServerTests.fileBytes, to: HTTPServerTests.filePath))
        let holder = Locked<(HTTPServer?, Int)>((nil, 0))
        let seen = self.seen
        worker = try LoopThread(name: "wire-test") { loop, _ in
            let server = try HTTPServer(loop: loop, host: "127.0.0.1", port: 0, limits: HTTPServerLimits())
            server.handler = { request in
                seen.withLock { $0.append(request.head.method + " " + request.head.target) }
                if request.uri.hasPrefix("/upload") { return HTTPServerTests.upload(request, seen: seen, mailbox: loop.mailbox) }
                HTTPServerTests.answer(request, seen: seen)
            }
            holder.withLock { $0 = (server, server.boundPort) }
        }
        port = holder.withLock { $0.1 }
        // The server lives as long as the loop: keep it referenced from the loop's thread.
        worker.mailbox.post { _ = holder.withLock { $0.0 } }
        self.holder = holder
    }

    private var holder: Locked<(HTTPServer?, Int)>?
    /// A file the `/file` answers send with sendfile.
    static let filePath = "/tmp/eddy-wire-test-\(getpid()).bin"
    static let fileBytes: [UInt8] = (0..<300_000).map { UInt8(97 + $0 % 26) } // letters: the reader compares text
    /// More than a loopback socket's send buffer takes at once (about 1.3 MB at the start).
    static let largePath = "/tmp/eddy-wire-test-large-\(getpid()).bin"
    static let largeBytes: [UInt8] = (0..<6_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }

    /// The test server's answers, by target.
    static func answer(_ request: ServerRequest, seen: Locked<[String]>) {
        switch request.uri {
        case "/length":
            request.send(status: 200, headers: HTTPHeaders([("Content-Length", "1000")]), extra: HTTPHeaders(), body: [])
        case "/echo":
            request.send(status: 200, headers: HTTPHeaders(), extra: HTTPHeaders(), body: request.body())
        case "/stream":
            // Ten pieces of 10,000 bytes, each after the last drained; no length: chunked (1.1).
            var left = 10
            let piece = [UInt8](repeating: UInt8(ascii: "s"), count: 10_000)
            request.onDrained = {
                left -= 1
                if left == 0 { return request.end() }
                piece.withUnsafeBytes { request.write($0) }
            }
            request.start(status: 200, headers: HTTPHeaders())
            piece.withUnsafeBytes { request.write($0) }
        case "/file":
            let fd = open(filePath, O_RDONLY)
            request.start(status: 200, headers: HTTPHeaders([("Content-Length", String(fileBytes.count))]))
            request.writeFile(FileSpan(descriptor: fd, offset: 0, length: fileBytes.count))
            close(fd) // the segment holds a copy of its own
            request.end(whenSent: { seen.withLock { $0.append("file sent") } })
        case "/small-file":
            // A complete response read from a file with one pread (`sendFile`).
            let fd = open(filePath, O_RDONLY)
            defer { close(fd) }
            _ = request.sendFile(status: 200, headers: HeaderBlock(HTTPHeaders()), extra: HTTPHeaders(),
                                 span: FileSpan(descriptor: fd, offset: 1000, length: 16384))
        case "/small-copy":
            // Under `sendfileThreshold`: read into the reply.
            let fd = open(filePath, O_RDONLY)
            defer { close(fd) }
            _ = request.sendFile(status: 200, headers: HeaderBlock(HTTPHeaders()), extra: HTTPHeaders(),
                                 span: FileSpan(descriptor: fd, offset: 5, length: 4000))
        case "/large-span":
            // More than the socket takes at once: sendfile sends part, the rest is read into the queue.
            let fd = open(largePath, O_RDONLY)
            defer { close(fd) }
            _ = request.sendFile(status: 200, headers: HeaderBlock(HTTPHeaders()), extra: HTTPHeaders(),
                                 span: FileSpan(descriptor: fd, offset: 0, length: largeBytes.count))
        case "/past-the-end":
            // The file is shorter than the span: nothing is sent, and the handler answers otherwise.
            let fd = open(filePath, O_RDONLY)
            defer { close(fd) }
            if !request.sendFile(status: 200, headers: HeaderBlock(HTTPHeaders()), extra: HTTPHeaders(),
                                 span: FileSpan(descriptor: fd, offset: fileBytes.count - 100, length: 16384)) {
                request.send(status: 502, headers: HTTPHeaders(), extra: HTTPHeaders(), body: Array("short".utf8))
            }
        case "/hold":
            request.onClose = { seen.withLock { $0.append("hold closed") } }
            request.start(status: 200, headers: HTTPHeaders())
            [UInt8](repeating: 1, count: 10).withUnsafeBytes { request.write($0) }
        default:
            request.send(status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]), extra: HTTPHeaders(),
                         body: Array(("answer to " + request.uri).utf8))
        }
    }

    override func tearDown() {
        worker.mailbox.post { [holder] in holder?.withLock { $0.0 = nil } }
        worker.stop()
        unlink(HTTPServerTests.filePath)
    }

    /// Sends `chunks` on a new connection (each as its own write) and reads until the server
    /// closes or `responses` complete responses arrived; 5 s at most.
    func exchange(_ chunks: [String], responses: Int, bodiless: Bool = false) throws -> (responses: [(status: Int, head: String, body: String)], closed: Bool) {
        let fd = connected()
        defer { close(fd) }
        for c in chunks {
            _ = c.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
            if chunks.count > 1 { usleep(2_000) } // separate segments
        }
        var data: [UInt8] = [], out: [(Int, String, String)] = [], closed = false
        var buf = [UInt8](repeating: 0, count: 65536)
        while out.count < responses {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 {
                closed = n == 0
                if closed, let r = Self.response(&data, bodiless: bodiless, closed: true) { out.append(r) }
                break
            }
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

    /// Takes one complete response off the front of `data`: by Content-Length, chunks, or
    /// (`closed`) everything up to the close.
    private static func response(_ data: inout [UInt8], bodiless: Bool, closed: Bool = false) -> (Int, String, String)? {
        guard let end = (0..<max(0, data.count - 3)).first(where: { data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10 })
        else { return nil }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n").map { $0.lowercased() }
        let status = Int(head.split(separator: " ")[1])!
        let length = lines.first { $0.hasPrefix("content-length:") }.map { Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces))! }
        var at = end + 4, body: [UInt8] = []
        if bodiless || (100..<200).contains(status) {
        } else if let length {
            guard data.count >= at + length else { return nil }
            body = Array(data[at..<at + length])
            at += length
        } else if lines.contains("transfer-encoding: chunked") {
            while true {
                guard let lf = data[at...].firstIndex(of: 10) else { return nil }
                let size = Int(String(decoding: data[at..<lf - 1], as: UTF8.self), radix: 16)!
                guard data.count >= lf + 1 + size + 2 else { return nil }
                body += data[(lf + 1)..<(lf + 1 + size)]
                at = lf + 1 + size + 2
                if size == 0 { break }
            }
        } else {
            guard closed else { return nil }
            body = Array(data[at...])
            at = data.count
        }
        data.removeFirst(at)
        return (status, head, String(decoding: body, as: UTF8.self))
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

    func testAHEADResponseHasTheLengthItWasGivenButNoBody() throws {
        let given = try exchange(["HEAD /length HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], responses: 1, bodiless: true)
        XCTAssertEqual(given.responses.map(\.status), [200])
        XCTAssertTrue(given.responses[0].head.contains("\r\nContent-Length: 1000"), given.responses[0].head)
        XCTAssertTrue(given.closed, "closed with nothing after the head")
        // Without one, none: "0" would tell the client the GET's body is empty (as evhttp, RFC 9110 section 9.3.2).
        let none = try exchange(["HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], responses: 1, bodiless: true)
        XCTAssertFalse(none.responses[0].head.contains("Content-Length"), none.responses[0].head)
        XCTAssertTrue(none.closed)
    }

}
