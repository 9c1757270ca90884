import EddyCache
import EddyCore
import Foundation
import XCTest

/// `Cache.holes(in:_:)`: exactly the sub-ranges the cache does not vouch for, through the protocol.
final class CacheHolesTests: XCTestCase {
    private var fixture: CacheFixture!
    private let block = CacheStore.blockSize

    override func setUp() { fixture = CacheFixture() }
    override func tearDown() { fixture = nil }

    func test_holes_areExactlyTheUnconfirmedSubranges() throws {
        let store = try fixture.openStore()
        let cache: any Cache = store
        let length = 3 * block + 17
        let r = cache.insert(key: "k/sparse", meta: fixture.meta(length: length), now: 1)
        XCTAssertEqual(cache.holes(in: r, 0..<length), [0..<length], "a new resource is one hole")
        fixture.writeAndConfirm(store, r, 0..<block)
        fixture.writeAndConfirm(store, r, (3 * block)..<length)

        XCTAssertEqual(cache.holes(in: r, 0..<length), [block..<(3 * block)])
        XCTAssertEqual(cache.holes(in: r, 0..<block), [])
        XCTAssertEqual(cache.holes(in: r, (3 * block + 5)..<length), [])
        XCTAssertEqual(cache.holes(in: r, (block - 10)..<(block + 10)), [block..<(block + 10)])
        XCTAssertEqual(cache.holes(in: r, (2 * block)..<(3 * block + 5)), [(2 * block)..<(3 * block)])
        XCTAssertEqual(cache.holes(in: r, (block + 1)..<(block + 2)), [(block + 1)..<(block + 2)])
        XCTAssertEqual(cache.holes(in: r, 0..<(length + 100)), [block..<(3 * block), length..<(length + 100)])
        XCTAssertEqual(cache.holes(in: r, 7..<7), [])

        // Written is not confirmed: the bytes are in the file, the hole stays.
        let written = fixture.pattern(100).withUnsafeBytes { cache.write(r, offset: block, bytes: $0) }
        XCTAssertTrue(written)
        XCTAssertEqual(cache.holes(in: r, 0..<length), [block..<(3 * block)])
        cache.confirm(r, block..<(2 * block), checksums: [:])
        XCTAssertEqual(cache.holes(in: r, 0..<length), [(2 * block)..<(3 * block)])
    }

    func test_holes_followDroppedBytesAndNewVersions() throws {
        let store = try fixture.openStore()
        let length = 2 * block
        let r = store.insert(key: "k/v", meta: fixture.meta(length: length), now: 1)
        fixture.writeAndConfirm(store, r, 0..<length)
        XCTAssertEqual(store.holes(in: r, 0..<length), [])

        store.dropDamaged(r, block..<length, reason: "test")
        XCTAssertEqual(store.holes(in: r, 0..<length), [block..<length])

        store.replace(r, with: fixture.meta(length: 3 * block))
        XCTAssertEqual(store.holes(in: r, 0..<(3 * block)), [0..<(3 * block)], "a new version starts empty")
    }

    /// A read does not paper over what the file does not hold: past its end it fails.
    func test_read_beyondTheWrittenFile_fails() throws {
        let store = try fixture.openStore()
        let r = store.insert(key: "k/short", meta: fixture.meta(length: 2 * block), now: 1)
        fixture.writeAndConfirm(store, r, 0..<block)
        XCTAssertEqual(store.read(r, 0..<block), fixture.pattern(block))
        XCTAssertNil(store.read(r, block..<(block + 10)))
        XCTAssertNil(store.read(r, (block - 5)..<(block + 5)))
        XCTAssertEqual(store.holes(in: r, (block - 5)..<(block + 5)), [block..<(block + 5)])
    }
}
