import EddyCache
import EddyCore
import Foundation
import Logging
import XCTest

/// A cache split into stripes, one per event loop (`CacheStore.stripes`): one index, one id
/// space, one budget and one least-recently-used order, with each resource touched only by its
/// own stripe. The last test runs the stripes on two real threads.
final class CacheStripesTests: XCTestCase {
    private var fixture: CacheFixture!
    private let logger = Logger(label: "eddy.test.stripes")

    override func setUp() { fixture = CacheFixture() }
    override func tearDown() { fixture = nil }

    private func openStripes(_ count: Int, maxSize: Int = 0) throws -> [CacheStore] {
        let stripes = try CacheStore.stripes(directory: fixture.directory, maxSize: maxSize, count: count, logger: logger)
        stripes[0].countsIndexInLimit = false // shared: one setting for all
        return stripes
    }

    /// The first `n` keys `k/<i>` that fall in `stripe` of `count`.
    private func keys(in stripe: Int, of count: Int, _ n: Int) -> [String] {
        Array((0..<10_000).lazy.map { "http://origin/k\($0)" }.filter { CacheStore.stripe(of: $0, count: count) == stripe }.prefix(n))
    }

    /// The cache directory and its missing parents are made owner-only (downloads keep AES keys
    /// there); a file where a directory should be is a clear error, not a crash.
    func test_opening_createsMissingDirectoriesOwnerOnly_andRefusesAFileInTheWay() throws {
        let dir = fixture.directory + "/a/b/cache"
        _ = try CacheStore.stripes(directory: dir, maxSize: 0, count: 1, logger: logger)
        for path in [fixture.directory + "/a", fixture.directory + "/a/b", dir, dir + "/data"] {
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0, path)
            XCTAssertEqual(info.st_mode & 0o7777, 0o700, path)
            XCTAssertEqual(info.st_mode & S_IFMT, S_IFDIR, path)
        }
        let blocked = fixture.directory + "/file"
        XCTAssertTrue(FileManager.default.createFile(atPath: blocked, contents: Data("x".utf8)))
        XCTAssertThrowsError(try CacheStore.stripes(directory: blocked, maxSize: 0, count: 1, logger: logger)) { error in
            XCTAssertTrue("\(error)".contains(blocked), "\(error)")
        }
        XCTAssertThrowsError(try CacheStore.stripes(directory: blocked + "/below", maxSize: 0, count: 1, logger: logger))
    }

    func test_stripeOfKey_isStableSpreadAndKeepsVariantsWithTheirURL() {
        XCTAssertEqual(CacheStore.stripe(of: "http://origin/a.ts", count: 1), 0)
        // Pinned values: the hash decides where a restart looks for a resource in memory (the
        // index is shared, so a change would cost nothing on disk, but it must be deliberate).
        XCTAssertEqual(CacheStore.stripe(of: "http://origin/a.ts", count: 7), 5)
        XCTAssertEqual(CacheStore.stripe(of: "http://origin/b.ts", count: 7), 0)
        let url = "http://origin/v.m3u8"
        for count in 2...16 {
            let variant = VaryKey.key(url, fields: ["accept-language"], request: HTTPHeaders([("Accept-Language", "fr")]))
            XCTAssertEqual(CacheStore.stripe(of: variant, count: count), CacheStore.stripe(of: url, count: count))
        }
        var perStripe = [Int](repeating: 0, count: 4)
        for i in 0..<4000 { perStripe[CacheStore.stripe(of: "http://origin/seg\(i).ts", count: 4)] += 1 }
        XCTAssertTrue(perStripe.allSatisfy { $0 > 850 && $0 < 1150 }, "\(perStripe)")
    }

    func test_stripesShareTotalsIdsAndIndex_andReopenAsOneStore() throws {
        let stripes = try openStripes(2)
        let a = keys(in: 0, of: 2, 1)[0], b = keys(in: 1, of: 2, 1)[0]
        let ra = stripes[0].insert(key: a, meta: fixture.meta(), now: 100)
        let rb = stripes[1].insert(key: b, meta: fixture.meta(), now: 100)
        XCTAssertNotEqual(ra.id, rb.id)
        fixture.writeAndConfirm(stripes[0], ra, 0..<1000)
        fixture.writeAndConfirm(stripes[1], rb, 0..<600)
        stripes[1].setPinned(rb, true)
        for s in stripes { XCTAssertEqual(s.totalBytes, 1600); XCTAssertEqual(s.pinnedBytes, 600) }
        for s in stripes { s.shutdown() }
        let ids = (ra.id, rb.id)
        let reopened = try reopenAsOne()
        XCTAssertEqual(reopened.totalBytes, 1600)
        XCTAssertEqual(reopened.pinnedBytes, 600)
        XCTAssertEqual(reopened.lookup(a, now: 200)?.confirmed.ranges, [0..<1000])
        XCTAssertEqual(reopened.lookup(b, now: 200)?.confirmed.ranges, [0..<600])
        XCTAssertEqual(reopened.lookup(a, now: 200)?.id, ids.0)
        let next = reopened.insert(key: "http://origin/new", meta: fixture.meta(), now: 300)
        XCTAssertGreaterThan(next.id, max(ids.0, ids.1), "ids stay unique across the stripes' run and the next")
    }

    /// The directory opened again, as one store (the directory lock is per process).
    private func reopenAsOne() throws -> CacheStore {
        try CacheStore(directory: fixture.directory, maxSize: 0, logger: logger)
    }

    func test_overBudget_victimsOfAnotherStripeAreHandedToIt_andItsOwnAreSpared() throws {
        let stripes = try openStripes(2, maxSize: 2500)
        var handed: [(Int, [(id: Int, key: String)])] = []
        stripes[1].evictElsewhere = { handed.append(($0, $1)) }
        let old = keys(in: 0, of: 2, 2), mine = keys(in: 1, of: 2, 2)
        let a = stripes[0].insert(key: old[0], meta: fixture.meta(), now: 100)
        fixture.writeAndConfirm(stripes[0], a, 0..<1000)
        let b = stripes[0].insert(key: old[1], meta: fixture.meta(), now: 200)
        fixture.writeAndConfirm(stripes[0], b, 0..<1000)
        stripes[0].flush(wait: true) // its loop's timer would have
        let c = stripes[1].insert(key: mine[0], meta: fixture.meta(), now: 300)
        fixture.writeAndConfirm(stripes[1], c, 0..<1000)
        let d = stripes[1].insert(key: mine[1], meta: fixture.meta(length: 10), now: 400)
        fixture.writeAndConfirm(stripes[1], d, 0..<10)

        // The least recently used is stripe 0's: handed over, not removed by stripe 1, and its
        // bytes count as on their way out, so stripe 1 keeps its own.
        XCTAssertEqual(handed.count, 1)
        XCTAssertEqual(handed.first?.0, 0)
        XCTAssertEqual(handed.first?.1.map(\.key), [old[0]])
        XCTAssertEqual(c.confirmed.ranges, [0..<1000])
        XCTAssertEqual(stripes[1].totalBytes, 3010)
        let path = stripes[0].path(a)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))

        // On its own loop, stripe 0 evicts it; a second hand-over of it is a no-op.
        stripes[0].evictIfIdle(handed[0].1)
        stripes[0].evictIfIdle(handed[0].1)
        XCTAssertEqual(stripes[1].totalBytes, 2010)
        XCTAssertNil(stripes[0].lookup(old[0], now: 500))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "unlinked once the index stopped naming it")
        XCTAssertEqual(b.confirmed.ranges, [0..<1000])
    }

    func test_handedOverVictimInUse_isKept() throws {
        let stripes = try openStripes(2, maxSize: 2500)
        let key = keys(in: 0, of: 2, 1)[0]
        let a = stripes[0].insert(key: key, meta: fixture.meta(), now: 100)
        fixture.writeAndConfirm(stripes[0], a, 0..<1000)
        stripes[0].flush(wait: true)
        stripes[0].isInUse = { $0.key == key }
        stripes[0].evictIfIdle([(a.id, key)])
        XCTAssertEqual(a.confirmed.ranges, [0..<1000])
        stripes[0].isInUse = { _ in false }
        stripes[0].evictIfIdle([(a.id + 1000, key)]) // another version's id: not this resource
        XCTAssertEqual(a.confirmed.ranges, [0..<1000])
        XCTAssertEqual(stripes[0].totalBytes, 1000)
    }

    /// Two stripes on two threads, each used only on its own serial queue (as each on its own
    /// loop), filling a small cache: the totals stay exact and within the budget, and the index
    /// agrees after reopening. Run under ThreadSanitizer this is the stripes' race check.
    func test_twoThreads_fillingPastTheBudget_keepExactTotals() throws {
        let stripes = try openStripes(2, maxSize: 40 * 1000)
        let queues = (0..<2).map { DispatchQueue(label: "stripe\($0)") }
        for (i, s) in stripes.enumerated() {
            let target = stripes[1 - i]
            s.evictElsewhere = { [unowned target] home, victims in
                XCTAssertEqual(home, 1 - i)
                queues[home].async { target.evictIfIdle(victims) }
            }
        }
        let group = DispatchGroup()
        for i in 0..<2 {
            let mine = keys(in: i, of: 2, 300)
            queues[i].async(group: group) { [fixture = fixture!] in
                for (n, key) in mine.enumerated() {
                    let r = stripes[i].insert(key: key, meta: fixture.meta(), now: 1000 + n)
                    fixture.writeAndConfirm(stripes[i], r, 0..<1000)
                    if n % 25 == 0 { stripes[i].flush() }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        for q in queues { q.sync {} } // hand-overs posted late
        for (i, q) in queues.enumerated() { q.sync { stripes[i].flush(wait: true) } }
        let total = stripes[0].totalBytes
        XCTAssertLessThanOrEqual(total, 40 * 1000)
        XCTAssertGreaterThan(total, 30 * 1000)
        for (i, q) in queues.enumerated() { q.sync { stripes[i].shutdown() } }
        let reopened = try reopenAsOne()
        XCTAssertEqual(reopened.totalBytes, total, "the index's totals are the stripes' together")
    }
}
