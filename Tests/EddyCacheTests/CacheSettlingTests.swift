@testable import EddyCache
import Foundation
import XCTest

/// The cache's totals while index commits are still running in the background: what memory has
/// dropped must not come back from the index before the commit that drops it there lands (a
/// resource purged and looked up at once had its bytes subtracted twice: `GET /api/cache` said
/// `"bytes": -102407` under schemathesis).
final class CacheSettlingTests: XCTestCase {
    /// Holds the index queue until the returned closure runs, as a slow disk would.
    private func holdIndexQueue(_ store: CacheStore) -> () -> Void {
        let gate = DispatchSemaphore(value: 0)
        store.index.queue.async { gate.wait() }
        return { gate.signal() }
    }

    func test_aResourceRemovedWhileItsDeleteIsQueued_isNotLoadedAgain_andIsSubtractedOnce() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let r = s.insert(key: "http://o/small.bin", meta: fx.meta(length: 1000), now: 1)
        fx.writeAndConfirm(s, r, 0..<1000)
        s.flush(wait: true)
        XCTAssertEqual(s.totalBytes, 1000)

        let release = holdIndexQueue(s)
        s.remove(r)
        s.flush() // queued behind the held queue: the index still has the row
        XCTAssertNil(s.lookup("http://o/small.bin", now: 2), "a removed row came back from the index")
        XCTAssertNil(s.peek("http://o/small.bin"))
        release()
        s.flush(wait: true)
        XCTAssertNil(s.lookup("http://o/small.bin", now: 3))
        XCTAssertEqual(s.totalBytes, 0)
    }

    func test_aResourceDroppedAgainAfterItsKeyWasStoredAnew_leavesTheNewOneInMemoryAndCounted() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let old = s.insert(key: "http://o/a", meta: fx.meta(length: 1000), now: 1)
        fx.writeAndConfirm(s, old, 0..<1000)
        s.remove(old) // a purge
        let new = s.insert(key: "http://o/a", meta: fx.meta(length: 1000), now: 2)
        fx.writeAndConfirm(s, new, 0..<1000)
        s.remove(old) // the old resource's fill ends and drops it again
        XCTAssertTrue(s.lookup("http://o/a", now: 3) === new, "the new resource left memory")
        XCTAssertEqual(s.totalBytes, 1000)
        s.remove(new)
        XCTAssertEqual(s.totalBytes, 0)
    }

    func test_trimmingWaitsForTheCommitThatWroteAResource() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        s.trimAt = Int.max // no trim at insert: this test flushes by hand
        var total = 0
        for i in 0..<(CacheStore.residentResources + 10) {
            let r = s.insert(key: "http://o/\(i)", meta: fx.meta(length: 100), now: 1)
            fx.writeAndConfirm(s, r, 0..<100)
            total += 100
        }
        let release = holdIndexQueue(s)
        s.flush() // queued, not landed: nothing may leave memory yet
        let r = try XCTUnwrap(s.lookup("http://o/7", now: 2))
        XCTAssertEqual(r.confirmed.count, 100, "a trimmed resource was read back before its commit landed")
        release()
        s.flush(wait: true)
        s.flush(wait: true)
        XCTAssertEqual(s.totalBytes, total)
        for i in 0..<20 {
            let again = try XCTUnwrap(s.lookup("http://o/\(i)", now: 3))
            XCTAssertEqual(again.confirmed.count, 100)
        }
    }
}
