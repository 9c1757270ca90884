import EddyCache
import EddyCore
import Foundation
import XCTest

/// The evictor as a listener of the store: storage only confirms bytes; eviction happens because
/// the evictor hears of them while the cache is over its budget.
final class CacheEvictorTests: XCTestCase {
    private var fixture: CacheFixture!
    private let block = CacheStore.blockSize

    override func setUp() { fixture = CacheFixture() }
    override func tearDown() { fixture = nil }

    func test_confirmPastBudget_evictsIdleLeastRecentlyUsed_onlyWhileTheEvictorListens() throws {
        let store = try fixture.openStore(maxSize: 2500)
        var evicted: [Int] = []
        store.onEvict = { evicted.append($0) }
        let recorder = RecordingListener()
        store.addListener(recorder)
        store.removeListener(store.evictor)
        let a = store.insert(key: "k/a", meta: fixture.meta(), now: 100)
        fixture.writeAndConfirm(store, a, 0..<1000)
        let b = store.insert(key: "k/b", meta: fixture.meta(), now: 200)
        fixture.writeAndConfirm(store, b, 0..<1000)
        let c = store.insert(key: "k/c", meta: fixture.meta(), now: 300)
        fixture.writeAndConfirm(store, c, 0..<1000)
        XCTAssertEqual(store.totalBytes, 3000, "confirming alone does not evict")
        XCTAssertEqual(evicted, [])

        store.addListener(store.evictor) // now after the recorder: it hears the cause, then the eviction
        let d = store.insert(key: "k/d", meta: fixture.meta(length: 10), now: 400)
        fixture.writeAndConfirm(store, d, 0..<10)

        XCTAssertEqual(evicted, [1000])
        XCTAssertEqual(Array(recorder.events.suffix(2)), [.confirmed(key: "k/d", count: 10), .removed(key: "k/a", bytes: 1000)])
        XCTAssertTrue(a.confirmed.isEmpty)
        XCTAssertEqual(a.fd, -1)
        XCTAssertEqual(b.confirmed.ranges, [0..<1000])
        XCTAssertEqual(c.confirmed.ranges, [0..<1000])
        XCTAssertEqual(store.totalBytes, 2010)
        XCTAssertNil(store.lookup("k/a", now: 500))
    }

    func test_bytesConfirmed_overBudget_sparesPinnedLeastRecentlyUsed() throws {
        let store = try fixture.openStore(maxSize: 2500)
        store.removeListener(store.evictor)
        let a = store.insert(key: "k/a", meta: fixture.meta(), now: 100)
        fixture.writeAndConfirm(store, a, 0..<1000)
        store.setPinned(a, true)
        let b = store.insert(key: "k/b", meta: fixture.meta(), now: 200)
        fixture.writeAndConfirm(store, b, 0..<1000)
        let c = store.insert(key: "k/c", meta: fixture.meta(), now: 300)
        fixture.writeAndConfirm(store, c, 0..<1000)
        XCTAssertEqual(store.totalBytes, 3000)

        // What the store would have told it: 0 new bytes, but the cache is over its budget.
        store.evictor.bytesConfirmed(c, count: 0)

        XCTAssertEqual(a.confirmed.ranges, [0..<1000], "pinned, though least recently used")
        XCTAssertTrue(b.confirmed.isEmpty, "the oldest unpinned resource goes")
        XCTAssertEqual(c.confirmed.ranges, [0..<1000])
        XCTAssertEqual(store.totalBytes, 2000)
        store.flush(wait: true)
        XCTAssertTrue(try XCTUnwrap(store.lookup("k/a", now: 400)).pinned)
        XCTAssertNil(store.lookup("k/b", now: 400))
    }

    /// Everything over the budget is in use: blocks outside the protected ranges go, oldest offsets
    /// first, down to the budget less the headroom (`min(4 blocks, budget / 16)`, the rule of both
    /// stages; with `max`, as this stage had, the whole unprotected middle went).
    func test_confirmPastBudget_resourceInUse_punchesUnprotectedBlocksAndKeepsProtected() throws {
        let length = 8 * block
        let store = try fixture.openStore(maxSize: 6 * block)
        var evicted: [Int] = []
        store.onEvict = { evicted.append($0) }
        store.protectedRanges = { [self] _ in [0..<block, (7 * block)..<length] }
        let r = store.insert(key: "k/movie", meta: fixture.meta(length: length), now: 100)
        store.isInUse = { $0 === r }
        for i in 0..<8 { fixture.writeAndConfirm(store, r, (i * block)..<((i + 1) * block)) }

        // Over at block 6 (7 blocks): the target is 6 - 0.375 blocks, so 2 blocks go, from block 1.
        XCTAssertEqual(evicted, [2 * block])
        XCTAssertEqual(r.confirmed.ranges, [0..<block, (3 * block)..<length])
        XCTAssertEqual(store.totalBytes, 6 * block)
        XCTAssertEqual(store.holes(in: r, 0..<length), [block..<(3 * block)])
        XCTAssertNotEqual(r.fd, -1, "a resource in use is never removed")

        let all = fixture.pattern(length)
        let onDisk = try XCTUnwrap(store.read(r, 0..<length))
        XCTAssertEqual(onDisk[0..<block], all[0..<block], "protected block intact")
        XCTAssertEqual(onDisk[(7 * block)..<length], all[(7 * block)..<length], "protected block intact")
        XCTAssertEqual(onDisk[(3 * block)..<(7 * block)], all[(3 * block)..<(7 * block)])
        XCTAssertTrue(onDisk[block..<(3 * block)].allSatisfy { $0 == 0 }, "evicted blocks are punched out of the file")

        store.flush(wait: true)
        let reopened = try fixture.openStore(maxSize: 6 * block) // the lock is the process's: a second store may open
        XCTAssertEqual(reopened.lookup("k/movie", now: 200)?.confirmed.ranges, [0..<block, (3 * block)..<length])
    }
}
