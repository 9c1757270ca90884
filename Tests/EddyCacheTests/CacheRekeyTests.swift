import EddyCache
import EddyCore
import XCTest

/// A staged new version taking its URL's key (a file download's refresh): the old version goes,
/// the new one keeps its bytes, pins and checksums under the new key, also after a reopen.
final class CacheRekeyTests: XCTestCase {
    func test_aStagedVersionReplacesTheOldUnderItsKey_andTheIndexKeepsIt() throws {
        let fx = CacheFixture()
        var store: CacheStore? = try fx.openStore()
        let s = store!
        let old = s.insert(key: "http://o/f", meta: fx.meta(length: 1000), now: 1)
        fx.writeAndConfirm(s, old, 0..<1000)
        s.setPinned(old, true)
        s.flush(wait: true) // the old row is in the index: the move must replace it there too
        var meta = fx.meta(length: 2000)
        meta.etag = "\"v2\""
        let staged = s.insert(key: "http://o/f\u{1}staged\u{1}", meta: meta, now: 1)
        let bytes = fx.pattern(2000, seed: 7)
        XCTAssertTrue(bytes.withUnsafeBytes { s.write(staged, offset: 0, bytes: $0) })
        s.confirm(staged, 0..<2000)
        s.setPinned(staged, true)
        XCTAssertEqual(s.pinnedBytes, 3000)

        s.setPinned(old, false)
        s.rekey(staged, to: "http://o/f")
        XCTAssertEqual(staged.key, "http://o/f")
        XCTAssertTrue(s.lookup("http://o/f", now: 2) === staged)
        XCTAssertNil(s.lookup("http://o/f\u{1}staged\u{1}", now: 2))
        XCTAssertNil(s.peek("http://o/f\u{1}staged\u{1}"), "the index no longer names it under the staging key")
        XCTAssertEqual(s.pinnedBytes, 2000)
        XCTAssertEqual(s.totalBytes, 2000)
        // The next refresh stages again under the same key at once.
        let next = s.insert(key: "http://o/f\u{1}staged\u{1}", meta: fx.meta(length: 500), now: 2)
        fx.writeAndConfirm(s, next, 0..<500)
        XCTAssertEqual(s.totalBytes, 2500)

        s.flush(wait: true)
        s.shutdown()
        store = nil
        let again = try fx.openStore()
        let r = try XCTUnwrap(again.lookup("http://o/f", now: 3))
        XCTAssertEqual(r.meta.etag, "\"v2\"")
        XCTAssertEqual(r.meta.length, 2000)
        XCTAssertTrue(r.pinned)
        XCTAssertTrue(r.confirmed.contains(0..<2000))
        XCTAssertEqual(again.lookup("http://o/f\u{1}staged\u{1}", now: 3)?.meta.length, 500)
        XCTAssertNotEqual(again.lookup("http://o/f\u{1}staged\u{1}", now: 3)?.id, r.id)
        XCTAssertTrue(again.verify(r, 0..<2000))
        var read = [UInt8](repeating: 0, count: 2000)
        XCTAssertTrue(read.withUnsafeMutableBytes { again.read(r, 0..<2000, into: $0) })
        XCTAssertEqual(read, bytes)
        XCTAssertEqual(again.totalBytes, 2500)
    }
}
