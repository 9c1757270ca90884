import EddyCache
import XCTest

/// The store's running count of pinned bytes: what `--max-size` leaves beside the downloads.
final class PinnedBytesTests: XCTestCase {
    func test_pinning_confirming_evicting_removing_andReopening_keepTheCountExact() throws {
        let fx = CacheFixture()
        var store: CacheStore? = try fx.openStore()
        let s = store!
        let a = s.insert(key: "http://o/a", meta: fx.meta(length: 300_000), now: 1)
        let b = s.insert(key: "http://o/b", meta: fx.meta(length: 1000), now: 1)
        fx.writeAndConfirm(s, a, 0..<131_072)
        fx.writeAndConfirm(s, b, 0..<1000)
        XCTAssertEqual(s.pinnedBytes, 0)
        s.setPinned(a, true)
        s.setPinned(a, true) // twice: counted once
        XCTAssertEqual(s.pinnedBytes, 131_072)
        fx.writeAndConfirm(s, a, 131_072..<300_000)
        XCTAssertEqual(s.pinnedBytes, 300_000, "bytes confirmed while pinned count")
        s.setPinned(b, true)
        XCTAssertEqual(s.pinnedBytes, 301_000)
        s.remove(b)
        XCTAssertEqual(s.pinnedBytes, 300_000, "a removed pinned resource takes its bytes with it")
        s.flush(wait: true)
        s.shutdown()
        store = nil
        let again = try fx.openStore()
        XCTAssertEqual(again.pinnedBytes, 300_000, "read back from the index")
        let a2 = try XCTUnwrap(again.lookup("http://o/a", now: 2))
        again.setPinned(a2, false)
        XCTAssertEqual(again.pinnedBytes, 0)
        XCTAssertEqual(again.totalBytes, 300_000)
    }
}
