import EddyCache
import EddyCore
import Foundation
import Logging
import XCTest

/// A throw-away cache directory and the helpers the cache tests share: stores without the index
/// in their limit (these caches hold less than the index itself), metadata, and pattern bytes.
final class CacheFixture {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-cache-\(UUID().uuidString)").path
    private let logger = Logger(label: "eddy.test.cache")

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func openStore(maxSize: Int = 0) throws -> CacheStore {
        let store = try CacheStore(directory: directory, maxSize: maxSize, logger: logger)
        store.countsIndexInLimit = false
        return store
    }

    func meta(length: Int? = 1000) -> ResourceMeta {
        ResourceMeta(length: length, etag: "\"v1\"", lastModified: nil, contentType: "video/mp4",
                     headers: HTTPHeaders([("Cache-Control", "max-age=60")]), storedAt: 1_700_000_000)
    }

    /// Bytes that differ from their neighbours and from a punched hole's zeros in most places.
    func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed) % 251) }
    }

    /// A resource of `length` pattern bytes under `key`, all of them confirmed.
    func stored(_ store: CacheStore, key: String, length: Int = 1000, now: Int = 1) -> CachedResource {
        let r = store.insert(key: key, meta: meta(length: length), now: now)
        writeAndConfirm(store, r, 0..<length)
        return r
    }

    /// Writes `range` of `r` (pattern bytes at their offsets) and confirms it.
    func writeAndConfirm(_ store: CacheStore, _ r: CachedResource, _ range: Range<Int>,
                         file: StaticString = #filePath, line: UInt = #line) {
        let ok = pattern(range.upperBound)[range].withUnsafeBytes { store.write(r, offset: range.lowerBound, bytes: $0) }
        XCTAssertTrue(ok, "write failed", file: file, line: line)
        store.confirm(r, range)
    }
}
