import EddyCore
import XCTest

/// Parent selection: rendezvous hashing of the cache key, health with capped backoff, go_direct.
final class ParentPoolTests: XCTestCase {
    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(Substring(s))! }
    private lazy var three = ParentPool([url("http://p1:8080/"), url("http://p2:8080/"), url("http://p3:8080/")])
    private let keys = (0..<3000).map { "http://origin.example/movies/\($0)/seg\($0 % 17).m4s" }

    func test_eachKeyHasOneStableHome_andTheTierSharesTheKeysEvenly() {
        var counts = [0, 0, 0]
        for k in keys {
            XCTAssertEqual(three.order(of: k), three.order(of: k))
            XCTAssertEqual(Set(three.order(of: k)), [0, 1, 2])
            guard case let .parent(i) = three.route(k, now: 0) else { return XCTFail("no parent") }
            XCTAssertEqual(i, three.order(of: k)[0])
            counts[i] += 1
        }
        for c in counts { XCTAssertEqual(Double(c), 1000, accuracy: 120, "\(counts)") }
    }

    func test_removingAParentMovesOnlyItsKeys_andAddingOneTakesAboutAThird() {
        let two = ParentPool([url("http://p1:8080/"), url("http://p3:8080/")])
        let four = ParentPool([url("http://p1:8080/"), url("http://p2:8080/"), url("http://p3:8080/"), url("http://p4:8080/")])
        var movedToNew = 0
        for k in keys {
            let home = three.parents[three.order(of: k)[0]].url
            let without = two.parents[two.order(of: k)[0]].url
            if home != url("http://p2:8080/") { XCTAssertEqual(without, home, "a key of a parent that stays does not move") }
            let with = four.parents[four.order(of: k)[0]].url
            if with != home {
                XCTAssertEqual(with, url("http://p4:8080/"), "a key moves only to the new parent")
                movedToNew += 1
            }
        }
        XCTAssertEqual(Double(movedToNew), Double(keys.count) / 4, accuracy: 120)
    }

    func test_parentsThatAnsweredWithoutTheObjectAreSkipped_inTheKeysOrder_untilNoneIsLeft() {
        var pool = three
        let k = keys[42]
        let order = pool.order(of: k)
        XCTAssertEqual(pool.next(for: k, now: 0, skipping: []), order[0])
        XCTAssertEqual(pool.route(k, now: 0, skipping: [order[0]]), .parent(order[1]))
        XCTAssertEqual(pool.next(for: k, now: 0, skipping: [order[0]]), order[1])
        // Passed over is not down: other keys still go there.
        XCTAssertFalse(pool.isDown(order[0], now: 0))
        // A down parent is not a next one either; with every other passed over, none is left.
        pool.failed(order[2], now: 0)
        XCTAssertNil(pool.next(for: k, now: 0.5, skipping: [order[0], order[1]]))
        XCTAssertEqual(pool.next(for: k, now: 0.5, skipping: [order[0]]), order[1])
        XCTAssertEqual(pool.next(for: k, now: 2, skipping: [order[0], order[1]]), order[2], "due for its probe")
    }

    func test_aDownParentIsSkippedForTheNextInTheKeysOrder_andProbedAfterACappedBackoff() {
        var pool = three
        let k = keys[7]
        let order = pool.order(of: k)
        pool.failed(order[0], now: 100)
        XCTAssertEqual(pool.route(k, now: 100.5), .parent(order[1]))
        XCTAssertEqual(pool.route(k, now: 101, probe: 5), .parent(order[0]), "after 1 s one request probes it")
        XCTAssertEqual(pool.route(k, now: 101.5), .parent(order[1]), "one probe at a time")
        pool.failed(order[0], now: 101)
        XCTAssertEqual(pool.route(k, now: 102.9), .parent(order[1]), "then 2 s")
        for n in 0..<10 { pool.failed(order[0], now: 200 + Double(n)) }
        XCTAssertTrue(pool.isDown(order[0], now: 209 + 29.9))
        XCTAssertFalse(pool.isDown(order[0], now: 209 + 30), "never more than 30 s")
        XCTAssertEqual(pool.route(k, now: 240), .parent(order[0]), "the probe")
        pool.answered(order[0])
        XCTAssertEqual(pool.route(k, now: 209.5), .parent(order[0]))
        XCTAssertEqual(pool.parents[order[0]].failures, 0)
    }

    func test_withEveryParentDown_goDirectDecides() {
        var direct = three
        var strict = ParentPool(three.parents.map(\.url), goDirect: false)
        for i in 0..<3 {
            direct.failed(i, now: 10)
            strict.failed(i, now: 10)
        }
        XCTAssertEqual(direct.route("k", now: 10.5), .direct)
        XCTAssertEqual(strict.route("k", now: 10.5), .unavailable)
        var none = ParentPool([])
        XCTAssertEqual(none.route("k", now: 0), .direct)
    }
}
