import EddyCore
import EddyLoop
import Glibc
import XCTest

/// Request bodies above `HTTPServerLimits.streamBodiesAbove` reach the handler while they
/// arrive, through a `RequestBodyStream`: every byte in order, a full stream stops the reading
/// (the client's socket backs up, the server holds its capacity and no more), and a client that
/// leaves mid-body is reported to the reader as a failure.
extension HTTPServerTests {
    /// The stream of the last `/upload-held` request, which is never read until the test says.
    static let held = Locked<RequestBodyStream?>(nil)

    /// `/upload`: reads the body as it comes and answers with its length and FNV-1a hash, and
    /// whether it came streamed. `/upload-held`: keeps the stream unread, for the test to look at.
    static func upload(_ request: ServerRequest, seen: Locked<[String]>, mailbox: LoopMailbox) {
        guard let stream = request.bodyStream else {
            let b = request.body()
            return request.send(status: 200, headers: HTTPHeaders(), extra: HTTPHeaders(), body: Array("whole \(b.count) \(fnv(b, 0xcbf2_9ce4_8422_2325))".utf8))
        }
        if request.uri == "/upload-held" {
            held.withLock { $0 = stream }
            request.onClose = { seen.withLock { $0.append("held closed") } }
            return
        }
        var total = 0, hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var buf = [UInt8](repeating: 0, count: 7000)
        func pump() {
            while true {
                switch buf.withUnsafeMutableBytes({ stream.read(into: $0) }) {
                case let .bytes(n):
                    total += n
                    hash = fnv(buf[0..<n], hash)
                case .wait: return
                case .end:
                    return request.send(status: 200, headers: HTTPHeaders(), extra: HTTPHeaders(), body: Array("streamed \(total) \(hash)".utf8))
                case .failed:
                    seen.withLock { $0.append("upload failed after \(total)") }
                    return
                }
            }
        }
        stream.onReadable(via: mailbox) { pump() }
        pump()
    }

    static func fnv<C: Collection>(_ bytes: C, _ start: UInt64) -> UInt64 where C.Element == UInt8 {
        var h = start
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads until `count` bytes arrived after the head, or the peer closed; the body as text.
    private func responseBody(_ fd: Int32) -> String {
        var data: [UInt8] = [], buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buf, buf.count, 0)
            if n <= 0 { break }
            data += buf[0..<n]
            let text = String(decoding: data, as: UTF8.self)
            if let r = text.range(of: "\r\n\r\n"), let l = text.range(of: "Content-Length: "),
               let len = Int(text[l.upperBound...].prefix { $0.isNumber }), text.utf8.count - text.utf8.distance(from: text.startIndex, to: r.upperBound) >= len {
                return String(text[r.upperBound...])
            }
        }
        return ""
    }

    func testALargeBodyIsStreamedWhole_byLengthAndInChunks() throws {
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let expected = "streamed \(body.count) \(HTTPServerTests.fnv(body, 0xcbf2_9ce4_8422_2325))"
        let a = connected()
        defer { close(a) }
        XCTAssertTrue(sendAll(a, Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body))
        XCTAssertEqual(responseBody(a), expected)
        let b = connected()
        defer { close(b) }
        var chunked = Array("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var at = 0
        while at < body.count {
            let n = min(body.count - at, 12_345)
            chunked += Array((String(n, radix: 16) + "\r\n").utf8) + body[at..<at + n] + Array("\r\n".utf8)
            at += n
        }
        chunked += Array("0\r\n\r\n".utf8)
        XCTAssertTrue(sendAll(b, chunked))
        XCTAssertEqual(responseBody(b), expected)
        let small = connected() // at or under the threshold: read whole, as before
        defer { close(small) }
        XCTAssertTrue(sendAll(small, Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".utf8)))
        XCTAssertEqual(responseBody(small), "whole 5 \(HTTPServerTests.fnv(Array("hello".utf8), 0xcbf2_9ce4_8422_2325))")
    }

    func testAFullStreamStopsTheReading_andAnAbandonedOneReadsOn() throws {
        let fd = connected()
        var tv = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let total = 64 << 20
        XCTAssertTrue(sendAll(fd, Array("POST /upload-held HTTP/1.1\r\nHost: x\r\nContent-Length: \(total)\r\n\r\n".utf8)))
        // Send until the socket blocks for 300 ms: the server stopped reading.
        let piece = [UInt8](repeating: 120, count: 65536)
        var sent = 0
        while sent < total {
            let n = piece.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            sent += n
        }
        XCTAssertLessThan(sent, total, "the server took the whole body without a reader")
        XCTAssertTrue(waitFor { HTTPServerTests.held.withLock { $0 } != nil })
        let stream = try XCTUnwrap(HTTPServerTests.held.withLock { $0 })
        let cap = RequestBodyStream.defaultCapacity
        XCTAssertLessThanOrEqual(stream.received, cap + 64 << 10, "read past a full stream (one read more at most)")
        XCTAssertGreaterThanOrEqual(stream.received, cap)
        // The reader gives up: the paused connection reads on (dropping the bytes), sees the
        // client gone, and reports it.
        close(fd)
        stream.abandon()
        XCTAssertTrue(waitFor { self.seen.withLock { $0.contains("held closed") } })
        var buf = [UInt8](repeating: 0, count: 10)
        XCTAssertEqual(buf.withUnsafeMutableBytes { stream.read(into: $0) }, .failed)
        HTTPServerTests.held.withLock { $0 = nil }
    }

    func testAReaderLearnsThatTheClientLeftMidBody() throws {
        let fd = connected()
        XCTAssertTrue(sendAll(fd, Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n".utf8) + [UInt8](repeating: 1, count: 200_000)))
        XCTAssertTrue(waitFor { self.seen.withLock { $0.contains("POST /upload") } })
        close(fd)
        XCTAssertTrue(waitFor { self.seen.withLock { $0.contains { $0.hasPrefix("upload failed after ") } } }, "\(seen.withLock { $0 })")
    }
}
