import EddyCache
import XCTest

/// `CacheStore.list` (the admin API's pages): committed rows and resources only in memory, in
/// one total order, each once across pages, whatever the page size.
final class CacheListingTests: XCTestCase {
    func test_pagesCoverCommittedAndUncommittedResourcesOnceInOrder() throws {
        let fx = CacheFixture()
        let s = try fx.openStore()
        let sizes = [3000, 1000, 5000, 2000, 4000, 6000]
        for (i, n) in sizes.enumerated() {
            let r = s.insert(key: "http://o/r\(i)", meta: fx.meta(length: n), now: 100 + i)
            fx.writeAndConfirm(s, r, 0..<n)
            if i == 2 { s.flush(wait: true) } // r0...r2 committed, r3...r5 only in memory
        }
        let other = s.insert(key: "http://p/x", meta: fx.meta(length: 10), now: 1)
        fx.writeAndConfirm(s, other, 0..<10)
        for order in ResourceOrder.allCases {
            for limit in [1, 2, 4, 10] {
                var seen: [ResourceSummary] = [], cursor: String?
                repeat {
                    let page = s.list(prefix: "http://o/", order: order, cursor: cursor, limit: limit)
                    XCTAssertLessThanOrEqual(page.items.count, limit)
                    seen += page.items
                    cursor = page.next
                } while cursor != nil
                XCTAssertEqual(seen.map(\.key).sorted(), (0..<6).map { "http://o/r\($0)" }, "\(order) by \(limit)")
                switch order {
                case .key: XCTAssertEqual(seen.map(\.key), seen.map(\.key).sorted())
                case .bytes: XCTAssertEqual(seen.map(\.bytes), sizes.sorted(by: >))
                case .lastAccess: XCTAssertEqual(seen.map(\.lastAccess), (100..<106).reversed().map { $0 })
                }
            }
        }
        XCTAssertEqual(s.list(prefix: "http://o/", order: .key, cursor: "not a cursor", limit: 2).items.map(\.key), ["http://o/r0", "http://o/r1"])
        XCTAssertEqual(s.keys(prefix: "http://o/r").count, 6)
        let peeked = try XCTUnwrap(s.peek("http://o/r1"))
        XCTAssertEqual(peeked.confirmed.count, 1000)
    }
}
