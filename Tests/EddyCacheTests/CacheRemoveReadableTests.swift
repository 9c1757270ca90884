import EddyCache
import EddyCore
import Foundation
import XCTest

/// A resource forgotten while responses read it (a purge, a refresh's new version taking its
/// URL's place): its bytes leave the index, the disk's name and the totals at once, but stay
/// readable to whoever holds it; nothing is written or counted for it again.
final class CacheRemoveReadableTests: XCTestCase {
    func test_removedInUse_itsBytesStayReadable_butLeaveTheIndexAndTotals() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let r = fx.stored(s, key: "http://o/film")
        s.setPinned(r, true)
        s.flush(wait: true)
        let path = s.path(r)
        XCTAssertEqual(s.totalBytes, 1000)

        s.setPinned(r, false)
        s.isInUse = { $0 === r } // a response reads it
        s.remove(r)
        s.flush(wait: true)
        XCTAssertTrue(r.isRemoved)
        XCTAssertNil(s.lookup("http://o/film", now: 2), "the index no longer names it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "its file is unlinked")
        XCTAssertEqual(s.totalBytes, 0)
        XCTAssertEqual(s.pinnedBytes, 0)
        // A response holding it reads on: the confirmed ranges and the open descriptor are kept.
        XCTAssertTrue(r.isComplete)
        XCTAssertGreaterThanOrEqual(r.fd, 0)
        XCTAssertEqual(s.read(r, 0..<1000), fx.pattern(1000))
        XCTAssertEqual(s.span(r, 0..<1000).descriptor, r.fd)

        // A fill still running on it neither writes into the unlinked file nor counts bytes.
        let other = fx.pattern(1000, seed: 9)
        XCTAssertFalse(other.withUnsafeBytes { s.write(r, offset: 0, bytes: $0) })
        s.confirm(r, 0..<1000)
        XCTAssertEqual(s.totalBytes, 0)
        XCTAssertEqual(s.read(r, 0..<1000), fx.pattern(1000), "the bytes read are the old ones")
        // Nor does a version change: no file comes back under its id, and its readers keep the
        // version they began with.
        let version = r.version
        s.replace(r, with: fx.meta(length: 500))
        XCTAssertEqual(r.version, version)
        XCTAssertEqual(r.meta.length, 1000)
        XCTAssertEqual(s.read(r, 0..<1000), fx.pattern(1000))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        s.flush(wait: true)
        XCTAssertNil(s.lookup("http://o/film", now: 3))
        XCTAssertEqual(s.totalBytes, 0)
    }

    func test_removedUnused_closesAndForgetsAtOnce() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let r = fx.stored(s, key: "http://o/clip")
        s.remove(r)
        XCTAssertTrue(r.isRemoved)
        XCTAssertEqual(r.fd, -1)
        XCTAssertTrue(r.confirmed.isEmpty)
        s.confirm(r, 0..<1000)
        XCTAssertTrue(r.confirmed.isEmpty, "a late confirmation does not bring bytes back")
        XCTAssertEqual(s.totalBytes, 0)
    }

    func test_aNewResourceUnderTheKeyOfOneInUse_leavesTheOldReadableToItsReaders() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let old = fx.stored(s, key: "http://o/seg")
        s.isInUse = { $0 === old }
        let new = s.insert(key: "http://o/seg", meta: fx.meta(length: 500), now: 2)
        XCTAssertTrue(old.isRemoved)
        XCTAssertFalse(new.isRemoved)
        XCTAssertTrue(s.lookup("http://o/seg", now: 3) === new)
        XCTAssertEqual(s.read(old, 0..<1000), fx.pattern(1000), "its reader finishes the old bytes")
        XCTAssertEqual(s.totalBytes, 0)
        // One nobody uses goes at once, descriptor and all.
        s.isInUse = { _ in false }
        let third = s.insert(key: "http://o/seg", meta: fx.meta(length: 500), now: 4)
        XCTAssertTrue(new.isRemoved)
        XCTAssertEqual(new.fd, -1)
        XCTAssertTrue(s.lookup("http://o/seg", now: 5) === third)
    }

    func test_removedTwice_isHeardOnce_andUncheckedBytesAreNotServed() throws {
        let fx = CacheFixture()
        var store: CacheStore? = try fx.openStore()
        _ = fx.stored(store!, key: "http://o/old")
        store!.shutdown()
        store = nil
        // Read back from the index: its bytes are unchecked until first served.
        let s = try fx.openStore()
        let r = try XCTUnwrap(s.lookup("http://o/old", now: 2))
        XCTAssertFalse(r.unverified.isEmpty)
        let heard = RecordingListener()
        s.addListener(heard)
        s.isInUse = { $0 === r } // a response reads it
        s.remove(r)
        XCTAssertTrue(r.confirmed.isEmpty, "unchecked bytes can not be checked once the row is gone")
        XCTAssertTrue(r.unverified.isEmpty)
        let next = s.insert(key: "http://o/old", meta: fx.meta(length: 1000), now: 3)
        s.remove(r) // dropped again while still read
        s.isInUse = { _ in false }
        s.remove(r) // and once its reader let go
        let removals = heard.events.filter { if case .removed = $0 { return true } else { return false } }
        XCTAssertEqual(removals, [.removed(key: "http://o/old", bytes: 1000)])
        XCTAssertEqual(r.fd, -1, "let go of by its last reader")
        XCTAssertTrue(s.lookup("http://o/old", now: 4) === next, "the new resource under its key is untouched")
    }
}
