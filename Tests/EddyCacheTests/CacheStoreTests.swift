@testable import EddyCache
import EddyCore
import Foundation
import Logging
import XCTest

final class CacheStoreTests: XCTestCase {
    var directory = ""
    let logger = Logger(label: "eddy.test.cache")
    let key = "https://cdn.example.com/movies/a.mp4"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-cache-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: helpers

    func openStore(maxSize: Int = 0) throws -> CacheStore {
        let store = try CacheStore(directory: directory, maxSize: maxSize, logger: logger)
        // These caches hold a few kB, less than the index itself: count data only.
        store.countsIndexInLimit = false
        return store
    }

    /// Writes `range` (pattern bytes) and confirms it: a reopened store keeps only confirmed bytes
    /// its data file really holds.
    func writeAndConfirm(_ store: CacheStore, _ r: CachedResource, _ range: Range<Int>) {
        write(store, r, at: range.lowerBound, pattern(range.count))
        store.confirm(r, range)
    }

    func meta(length: Int? = 1000, etag: String? = "\"v1\"", storedAt: Int = 1_700_000_000) -> ResourceMeta {
        ResourceMeta(length: length, etag: etag, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", contentType: "video/mp4",
                     headers: HTTPHeaders([("Cache-Control", "max-age=60"), ("Content-Language", "en"), ("X-Multi", "a: b")]),
                     storedAt: storedAt)
    }

    func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed) % 251) }
    }

    @discardableResult
    func write(_ store: CacheStore, _ r: CachedResource, at offset: Int, _ bytes: [UInt8],
                       file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let ok = bytes.withUnsafeBytes { store.write(r, offset: offset, bytes: $0) }
        XCTAssertTrue(ok, "write failed", file: file, line: line)
        return ok
    }

    func read(_ r: CachedResource, at offset: Int, count: Int) -> [UInt8] {
        var buf = [UInt8](repeating: 0, count: count)
        let n = buf.withUnsafeMutableBytes { pread(r.fd, $0.baseAddress!, count, off_t(offset)) }
        return n < 0 ? [] : Array(buf[0..<n])
    }

    // MARK: persistence

    /// The data files' layout is what a restart finds them by: pinned, so that a change (it once
    /// went through `String(format: "%02x")`) can not silently miss every stored body.
    func test_dataFilePath_isTwoLowercaseHexDigitsOfTheIdThenIdAndVersion() {
        XCTAssertEqual(DataFiles.path(directory: "/c", id: 0, version: 1), "/c/data/00/0-1")
        XCTAssertEqual(DataFiles.path(directory: "/c", id: 10, version: 2), "/c/data/0a/10-2")
        XCTAssertEqual(DataFiles.path(directory: "/c", id: 255, version: 3), "/c/data/ff/255-3")
        XCTAssertEqual(DataFiles.path(directory: "/c", id: 256, version: 4), "/c/data/00/256-4")
        XCTAssertEqual(DataFiles.path(directory: "/c", id: 4_660, version: 7), "/c/data/34/4660-7")
    }

    func test_flush_reopen_restoresMetaConfirmedRangesAndBytes() throws {
        let bytes = pattern(1000)
        let m = meta()
        var id = 0
        do {
            let store = try openStore()
            XCTAssertEqual(store.startupCount, 0)
            XCTAssertNil(store.lookup(key, now: 100))
            let r = store.insert(key: key, meta: m, now: 100)
            id = r.id
            XCTAssertEqual(r.version, 1)
            XCTAssertTrue(r.confirmed.isEmpty)
            XCTAssertGreaterThanOrEqual(r.fd, 0)
            write(store, r, at: 0, bytes)
            store.confirm(r, 0..<1000)
            XCTAssertEqual(r.confirmed.ranges, [0..<1000])
            XCTAssertTrue(r.isComplete)
            XCTAssertEqual(store.totalBytes, 1000)
            store.flush(wait: true)
        }
        let reopened = try openStore()
        XCTAssertEqual(reopened.startupCount, 1)
        XCTAssertEqual(reopened.totalBytes, 1000)
        let r = try XCTUnwrap(reopened.lookup(key, now: 200))
        XCTAssertEqual(r.id, id)
        XCTAssertEqual(r.key, key)
        XCTAssertEqual(r.version, 1)
        XCTAssertEqual(r.meta, m)
        XCTAssertEqual(r.confirmed.ranges, [0..<1000])
        XCTAssertTrue(r.isComplete)
        XCTAssertFalse(r.pinned)
        XCTAssertEqual(read(r, at: 0, count: 1000), bytes)
        XCTAssertEqual(reopened.path(r), "\(directory)/data/\(String(format: "%02x", id & 0xFF))/\(id)-1")
        XCTAssertTrue(FileManager.default.fileExists(atPath: reopened.path(r)))
    }

    func test_flush_reopen_keepsAStoredStatus() throws {
        var m = meta()
        m.status = 404
        do {
            let store = try openStore()
            _ = store.insert(key: key, meta: m, now: 100)
            store.flush(wait: true)
        }
        XCTAssertEqual(try XCTUnwrap(try openStore().lookup(key, now: 200)).meta.status, 404)
    }

    func test_open_anIndexWithoutTheStatusColumn_addsIt_andItsRowsAre200s() throws {
        do {
            let store = try openStore()
            _ = store.insert(key: key, meta: meta(), now: 100)
            store.flush(wait: true)
        }
        // The schema of indexes written before non-200 responses were stored.
        let old = try SQLiteConnection(path: directory + "/index.sqlite")
        try old.exec("ALTER TABLE resources DROP COLUMN status")
        let r = try XCTUnwrap(try openStore().lookup(key, now: 200))
        XCTAssertEqual(r.meta.status, 200)
        XCTAssertEqual(r.meta, meta())
    }

    func test_flush_reopen_sparseBlocksKeepTheirOffsets() throws {
        let block = CacheStore.blockSize
        let length = 3 * block + 17
        let first = pattern(block, seed: 1), last = pattern(17, seed: 2)
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(length: length), now: 1)
            write(store, r, at: 0, first)
            write(store, r, at: 3 * block, last)
            store.confirm(r, 0..<block)
            store.confirm(r, (3 * block)..<length)
            store.flush(wait: true)
        }
        let r = try XCTUnwrap(try openStore().lookup(key, now: 2))
        XCTAssertEqual(r.confirmed.ranges, [0..<block, (3 * block)..<length])
        XCTAssertFalse(r.isComplete)
        XCTAssertEqual(r.confirmed.gaps(in: 0..<length), [block..<(3 * block)])
        XCTAssertEqual(read(r, at: 0, count: block), first)
        XCTAssertEqual(read(r, at: 3 * block, count: 17), last)
    }

    func test_flush_unconfirmedWrittenBytes_areNotConfirmedAfterReopen() throws {
        let block = CacheStore.blockSize
        let otherKey = key + "?other"
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(length: 2 * block), now: 1)
            write(store, r, at: 0, pattern(block + 100))  // a whole block and part of the next
            store.confirm(r, 0..<block)
            let o = store.insert(key: otherKey, meta: meta(length: 500), now: 1)
            write(store, o, at: 0, pattern(500))          // written, never confirmed
            store.flush(wait: true)
            XCTAssertEqual(store.totalBytes, block)
        }
        let reopened = try openStore()
        XCTAssertEqual(reopened.totalBytes, block)
        let r = try XCTUnwrap(reopened.lookup(key, now: 2))
        XCTAssertEqual(r.confirmed.ranges, [0..<block])
        XCTAssertFalse(r.confirmed.contains(block..<(block + 1)))
        let o = try XCTUnwrap(reopened.lookup(otherKey, now: 2))
        XCTAssertTrue(o.confirmed.isEmpty)
    }

    func test_flush_withoutWait_isCommittedBeforeNextWaitingFlush() throws {
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(), now: 1)
            write(store, r, at: 0, pattern(1000))
            writeAndConfirm(store, r, 0..<1000)
            store.flush()
            // The serial index queue runs the first job before the waited one. (A waited flush with
            // nothing dirty returns at once without draining the queue, so dirty something.)
            let o = store.insert(key: key + "?2", meta: meta(), now: 2)
            writeAndConfirm(store, o, 0..<10)
            store.flush(wait: true)
        }
        let reopened = try openStore()
        XCTAssertEqual(reopened.lookup(key, now: 3)?.confirmed.ranges, [0..<1000])
        XCTAssertEqual(reopened.lookup(key + "?2", now: 3)?.confirmed.ranges, [0..<10])
    }

    func test_confirm_overlappingRanges_countsBytesOnce() throws {
        let store = try openStore()
        let r = store.insert(key: key, meta: meta(), now: 1)
        store.confirm(r, 0..<600)
        store.confirm(r, 400..<1000)
        store.confirm(r, 0..<1000)
        XCTAssertEqual(store.totalBytes, 1000)
        XCTAssertEqual(r.confirmed.ranges, [0..<1000])
    }

    func test_refresh_newMeta_persistsForSameVersion() throws {
        var m2 = meta(storedAt: 1_800_000_000)
        m2.headers.set("Cache-Control", "max-age=120")
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(), now: 1)
            writeAndConfirm(store, r, 0..<1000)
            store.flush(wait: true)
            store.refresh(r, meta: m2)
            store.flush(wait: true)
        }
        let r = try XCTUnwrap(try openStore().lookup(key, now: 2))
        XCTAssertEqual(r.version, 1)
        XCTAssertEqual(r.meta, m2)
        XCTAssertEqual(r.confirmed.ranges, [0..<1000])
    }

    // MARK: replace

    func test_replace_flushedResource_bumpsVersionEmptiesConfirmedAndUnlinksOldFile() throws {
        let m2 = meta(length: 2000, etag: "\"v2\"")
        let newBytes = pattern(2000, seed: 9)
        do {
            let store = try openStore()
            let r = store.insert(key: key, meta: meta(), now: 1)
            write(store, r, at: 0, pattern(1000))
            store.confirm(r, 0..<1000)
            store.flush(wait: true)
            let oldPath = store.path(r)
            XCTAssertTrue(FileManager.default.fileExists(atPath: oldPath))

            store.replace(r, with: m2)
            XCTAssertEqual(r.version, 2)
            XCTAssertTrue(r.confirmed.isEmpty)
            XCTAssertEqual(r.meta, m2)
            XCTAssertEqual(store.totalBytes, 0)
            XCTAssertNotEqual(store.path(r), oldPath)
            XCTAssertTrue(store.path(r).hasSuffix("-2"))
            XCTAssertGreaterThanOrEqual(r.fd, 0)
            XCTAssertEqual(read(r, at: 0, count: 10), [], "the new version's file starts empty")

            store.flush(wait: true)
            XCTAssertFalse(FileManager.default.fileExists(atPath: oldPath), "old version's file is unlinked after the commit")
        }
        let store = try openStore()
        XCTAssertEqual(store.totalBytes, 0)
        let r = try XCTUnwrap(store.lookup(key, now: 2))
        XCTAssertEqual(r.version, 2)
        XCTAssertEqual(r.meta, m2)
        XCTAssertTrue(r.confirmed.isEmpty)

        write(store, r, at: 0, newBytes)
        store.confirm(r, 0..<2000)
        store.flush(wait: true)
        let again = try XCTUnwrap(try openStore().lookup(key, now: 3))
        XCTAssertEqual(again.version, 2)
        XCTAssertEqual(again.confirmed.ranges, [0..<2000])
        XCTAssertEqual(read(again, at: 0, count: 2000), newBytes)
    }

    // MARK: remove
}
