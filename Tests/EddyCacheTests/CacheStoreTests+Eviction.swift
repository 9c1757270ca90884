@testable import EddyCache
import EddyCore
import Foundation
import Logging
import XCTest

/// Removal and replacement in memory and across a flush; eviction under `max_size`: least recently used first, never a pinned resource or one in use;
/// and open descriptors stay bounded.
extension CacheStoreTests {
    func test_remove_thenFlush_lookupIsNilAfterReopen() throws {
        var path = ""
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(), now: 1)
            write(store, r, at: 0, pattern(1000))
            writeAndConfirm(store, r, 0..<1000)
            store.flush(wait: true)
            path = store.path(r)
            store.remove(r)
            XCTAssertEqual(r.fd, -1)
            XCTAssertTrue(r.confirmed.isEmpty)
            XCTAssertEqual(store.totalBytes, 0)
            store.flush(wait: true)
            XCTAssertNil(store.lookup(key, now: 2))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        let reopened = try openStore()
        XCTAssertEqual(reopened.startupCount, 0)
        XCTAssertEqual(reopened.totalBytes, 0)
        XCTAssertNil(reopened.lookup(key, now: 3))
    }

    /// Regression: `remove` (and eviction) queue the index delete until the next flush; a `lookup`
    /// in between must not reload the row, or a later flush would re-upsert it and unlink its file.
    func test_remove_lookupBeforeFlush_doesNotResurrect() throws {
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(), now: 1)
            write(store, r, at: 0, pattern(1000))
            writeAndConfirm(store, r, 0..<1000)
            store.flush(wait: true)
            store.remove(r)
            XCTAssertNil(store.lookup(key, now: 2))
            store.flush(wait: true)
        }
        let reopened = try openStore()
        XCTAssertNil(reopened.lookup(key, now: 3))
        XCTAssertEqual(reopened.totalBytes, 0)
    }

    func test_insert_sameKeyInMemory_replacesOldResource() throws {
        do {
            let store = try openStore()
            let old = store.insert(key: key, meta: meta(), now: 1)
            writeAndConfirm(store, old, 0..<1000)
            store.flush(wait: true)
            let new = store.insert(key: key, meta: meta(etag: "\"v2\""), now: 2)
            XCTAssertNotEqual(new.id, old.id)
            XCTAssertEqual(store.totalBytes, 0)
            store.flush(wait: true)
        }
        let store = try openStore()
        XCTAssertEqual(store.startupCount, 1)
        let r = try XCTUnwrap(store.lookup(key, now: 3))
        XCTAssertEqual(r.meta.etag, "\"v2\"")
        XCTAssertTrue(r.confirmed.isEmpty)
    }

    // MARK: eviction

    func test_confirm_overMaxSize_evictsLeastRecentlyUsed() throws {
        let store = try openStore(maxSize: 2500)
        var evicted: [Int] = []
        store.onEvict = { evicted.append($0) }
        let a = store.insert(key: "k/a", meta: meta(), now: 100)
        writeAndConfirm(store, a, 0..<1000)
        let b = store.insert(key: "k/b", meta: meta(), now: 200)
        writeAndConfirm(store, b, 0..<1000)
        XCTAssertEqual(evicted, [])
        let c = store.insert(key: "k/c", meta: meta(), now: 300)
        writeAndConfirm(store, c, 0..<1000)

        XCTAssertEqual(evicted, [1000])
        XCTAssertEqual(store.totalBytes, 2000)
        XCTAssertTrue(a.confirmed.isEmpty)
        XCTAssertEqual(a.fd, -1)
        XCTAssertEqual(b.confirmed.ranges, [0..<1000])
        XCTAssertEqual(c.confirmed.ranges, [0..<1000])
        store.flush(wait: true)

        let reopened = try openStore(maxSize: 2500)
        XCTAssertNil(reopened.lookup("k/a", now: 400))
        XCTAssertNotNil(reopened.lookup("k/b", now: 400))
        XCTAssertNotNil(reopened.lookup("k/c", now: 400))
        XCTAssertEqual(reopened.totalBytes, 2000)
    }

    func test_confirm_overMaxSize_skipsPinnedResource() throws {
        let store = try openStore(maxSize: 2500)
        let a = store.insert(key: "k/a", meta: meta(), now: 100)
        writeAndConfirm(store, a, 0..<1000)
        store.setPinned(a, true)
        XCTAssertTrue(a.pinned)
        let b = store.insert(key: "k/b", meta: meta(), now: 200)
        writeAndConfirm(store, b, 0..<1000)
        let c = store.insert(key: "k/c", meta: meta(), now: 300)
        writeAndConfirm(store, c, 0..<1000)

        XCTAssertEqual(a.confirmed.ranges, [0..<1000], "pinned, though least recently used")
        XCTAssertTrue(b.confirmed.isEmpty, "the oldest unpinned resource goes")
        XCTAssertEqual(c.confirmed.ranges, [0..<1000])
        store.flush(wait: true)

        let reopened = try openStore(maxSize: 2500)
        let ra = try XCTUnwrap(reopened.lookup("k/a", now: 400))
        XCTAssertTrue(ra.pinned)
        XCTAssertNil(reopened.lookup("k/b", now: 400))
        XCTAssertNotNil(reopened.lookup("k/c", now: 400))
    }

    func test_confirm_overMaxSize_skipsResourceInUse() throws {
        let store = try openStore(maxSize: 2500)
        let a = store.insert(key: "k/a", meta: meta(), now: 100)
        writeAndConfirm(store, a, 0..<1000)
        store.isInUse = { $0 === a }
        let b = store.insert(key: "k/b", meta: meta(), now: 200)
        writeAndConfirm(store, b, 0..<1000)
        let c = store.insert(key: "k/c", meta: meta(), now: 300)
        writeAndConfirm(store, c, 0..<1000)
        XCTAssertEqual(a.confirmed.ranges, [0..<1000])
        XCTAssertTrue(b.confirmed.isEmpty)
    }

    func test_touch_recentAccess_changesEvictionOrder() throws {
        let store = try openStore(maxSize: 2500)
        let a = store.insert(key: "k/a", meta: meta(), now: 100)
        writeAndConfirm(store, a, 0..<1000)
        let b = store.insert(key: "k/b", meta: meta(), now: 200)
        writeAndConfirm(store, b, 0..<1000)
        store.touch(a, now: 250)
        let c = store.insert(key: "k/c", meta: meta(), now: 300)
        writeAndConfirm(store, c, 0..<1000)
        XCTAssertEqual(a.confirmed.ranges, [0..<1000])
        XCTAssertTrue(b.confirmed.isEmpty)
    }

    func test_confirm_maxSizeZero_neverEvicts() throws {
        let store = try openStore(maxSize: 0)
        let rs = (0..<5).map { store.insert(key: "k/\($0)", meta: meta(), now: $0) }
        for r in rs { store.confirm(r, 0..<1000) }
        XCTAssertEqual(store.totalBytes, 5000)
        XCTAssertTrue(rs.allSatisfy { $0.confirmed.count == 1000 })
    }

    // MARK: descriptors

    /// Every resource in memory holds a descriptor; a burst of new URLs between two timer flushes
    /// must not exhaust RLIMIT_NOFILE (it did at ~15,000 before the table was trimmed as it grows).
    func test_insert_manyNewResources_keepsOpenDescriptorsBounded() throws {
        let store = try openStore()
        func openFDs() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        let before = openFDs()
        var peak = 0
        for i in 0..<12_000 {
            let r = store.insert(key: "https://cdn.example.com/u?\(i)", meta: meta(length: 10), now: 1_700_000_000)
            XCTAssertGreaterThanOrEqual(r.fd, 0)
            if i % 500 == 0 { peak = max(peak, openFDs() - before) }
        }
        peak = max(peak, openFDs() - before)
        store.flush(wait: true)
        XCTAssertLessThan(peak, 2 * 4096 + 128, "descriptors held by resources in memory (12,000 without trimming)")
        let last = store.lookup("https://cdn.example.com/u?11999", now: 1_700_000_001)
        XCTAssertEqual(last?.meta.length, 10)
        let first = store.lookup("https://cdn.example.com/u?0", now: 1_700_000_001)
        XCTAssertEqual(first?.meta.length, 10, "trimmed resources come back from the index")
    }
}
