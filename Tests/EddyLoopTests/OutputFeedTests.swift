import CLibevent
import EddyCore
@testable import EddyLoop
import Glibc
import XCTest

/// A TLS connection's output tail: file spans read a step at a time, in order with the bytes
/// queued behind them, and a file cut short reported rather than padded.
final class OutputFeedTests: XCTestCase {
    private var path = ""
    private var fd: Int32 = -1
    private let fileBytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    override func setUp() {
        path = NSTemporaryDirectory() + "feed-\(getpid())-\(UUID().uuidString)"
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        _ = fileBytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    override func tearDown() {
        close(fd)
        unlink(path)
    }

    private func drain(_ buffer: OpaquePointer) -> [UInt8] {
        let n = evbuffer_get_length(buffer)
        var out = [UInt8](repeating: 0, count: n)
        _ = out.withUnsafeMutableBytes { evbuffer_remove(buffer, $0.baseAddress, n) }
        return out
    }

    func test_topUp_readsAStepAtATime_inOrderWithBytesBehindTheFile() throws {
        var feed = OutputFeed()
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        [UInt8]("head".utf8).withUnsafeBytes { feed.append($0) }
        XCTAssertTrue(feed.append(FileSpan(descriptor: fd, offset: 1000, length: 200_000)))
        [UInt8]("tail".utf8).withUnsafeBytes { feed.append($0) }
        XCTAssertEqual(feed.total, 200_008)
        var out: [UInt8] = []
        var rounds = 0
        while !feed.isEmpty {
            XCTAssertTrue(feed.topUp(buffer, to: 64 << 10))
            XCTAssertLessThanOrEqual(evbuffer_get_length(buffer), (64 << 10) + 4, "never much more than the step in memory")
            out += drain(buffer)
            rounds += 1
        }
        XCTAssertEqual(out, Array("head".utf8) + Array(fileBytes[1000..<201_000]) + Array("tail".utf8))
        XCTAssertGreaterThanOrEqual(rounds, 3)
        XCTAssertEqual(feed.total, 0)
    }

    func test_topUp_aFileCutShort_isReported() {
        var feed = OutputFeed()
        let buffer = evbuffer_new()!
        defer { evbuffer_free(buffer) }
        XCTAssertTrue(feed.append(FileSpan(descriptor: fd, offset: 290_000, length: 20_000)))
        XCTAssertFalse(feed.topUp(buffer, to: 64 << 10), "the head promised bytes the file does not have")
        feed.removeAll()
        XCTAssertTrue(feed.isEmpty)
        XCTAssertEqual(feed.total, 0)
    }

    func test_removeAll_closesTheDescriptorCopies() {
        var feed = OutputFeed()
        XCTAssertTrue(feed.append(FileSpan(descriptor: fd, offset: 0, length: 10)))
        let copy = dup(fd) // the next free number: the feed's copy is one below it
        close(copy)
        feed.removeAll()
        XCTAssertEqual(fcntl(copy - 1, F_GETFD), -1, "the feed's copy is closed")
    }
}
