@testable import EddyServing
import EddyCore
import XCTest

/// What a snapshot answers itself and what it sends home, by the request's Range.
final class HitSnapshotsPlanTests: XCTestCase {
    func testNoRangeIsTheWhole200() {
        let p = HitSnapshots.plan(range: nil, length: 1000)
        XCTAssertEqual(p?.status, 200)
        XCTAssertEqual(p?.pieces, [.resource(0..<1000)])
        XCTAssertEqual(p?.bodyFields["Content-Length"], "1000")
    }

    func testOneSpanIsA206() {
        let p = HitSnapshots.plan(range: "bytes=10-19", length: 1000)
        XCTAssertEqual(p?.status, 206)
        XCTAssertEqual(p?.pieces, [.resource(10..<20)])
        XCTAssertEqual(p?.bodyFields["Content-Range"], "bytes 10-19/1000")
        XCTAssertEqual(p?.bodyFields["Content-Length"], "10")
    }

    func testSuffixAndOpenEndedSpans() {
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=-100", length: 1000)?.pieces, [.resource(900..<1000)])
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=990-", length: 1000)?.pieces, [.resource(990..<1000)])
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=990-5000", length: 1000)?.pieces, [.resource(990..<1000)])
    }

    func testMultipartAndUnsatisfiableGoHome() {
        XCTAssertNil(HitSnapshots.plan(range: "bytes=0-9,100-109", length: 1000))
        XCTAssertNil(HitSnapshots.plan(range: "bytes=1000-", length: 1000))
    }

    func testAFieldThatIsNotAByteRangeIsIgnoredAsTheExchangeIgnoresIt() {
        // RFC 9110 section 14.2: a server may ignore a Range it does not understand.
        XCTAssertEqual(HitSnapshots.plan(range: "items=0-9", length: 1000)?.status, 200)
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=x-y", length: 1000)?.status, 200)
    }

    func testConditionalsAndHeadGoHome() {
        var h = HTTPHeaders()
        h.set("Range", "bytes=0-9")
        XCTAssertTrue(HitSnapshots.eligible(method: "GET", headers: h))
        XCTAssertFalse(HitSnapshots.eligible(method: "HEAD", headers: h))
        h.set("If-Range", "\"v1\"")
        XCTAssertFalse(HitSnapshots.eligible(method: "GET", headers: h))
    }

    /// A partly stored resource (a player's seek into a large file): a span within what is
    /// stored is answered; a span reaching past it, the whole body and a suffix it lacks go home.
    func testAPartlyStoredBodyAnswersOnlySpansWithinItsStoredBytes() {
        let stored = ByteRangeSet([100..<200, 500..<1000])
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=100-199", length: 1000, stored: stored)?.pieces, [.resource(100..<200)])
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=-100", length: 1000, stored: stored)?.pieces, [.resource(900..<1000)])
        XCTAssertEqual(HitSnapshots.plan(range: "bytes=600-", length: 1000, stored: stored)?.status, 206)
        XCTAssertNil(HitSnapshots.plan(range: "bytes=150-250", length: 1000, stored: stored))
        XCTAssertNil(HitSnapshots.plan(range: "bytes=199-500", length: 1000, stored: stored))
        XCTAssertNil(HitSnapshots.plan(range: "bytes=-901", length: 1000, stored: stored))
        XCTAssertNil(HitSnapshots.plan(range: nil, length: 1000, stored: stored))
        XCTAssertNil(HitSnapshots.plan(range: "items=0-9", length: 1000, stored: stored), "ignored Range: the whole body")
        XCTAssertNil(HitSnapshots.plan(range: "bytes=0-9", length: 1000, stored: ByteRangeSet()))
    }
}
