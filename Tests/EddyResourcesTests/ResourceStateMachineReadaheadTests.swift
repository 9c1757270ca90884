import EddyCore
@testable import EddyResources
import XCTest

/// `readahead` (issue 58), with 100-byte blocks: a response's fill asks at most that far past the
/// block its reader is in; downloads and prefetch ask what they need.
final class ResourceStateMachineReadaheadTests: XCTestCase {
    private func machine() -> ResourceStateMachine {
        ResourceStateMachine(blocks: BlockLayout(size: 100), lookahead: 200, behind: 50, maxAttempts: 4)
    }

    func test_need_ofAResponse_asksAtMostReadaheadPastItsBlock() {
        var m = machine()
        let id = m.open(priority: .playback, fetchOnly: false)
        m.read(id, from: 150, to: Int.max)
        XCTAssertEqual(m.need(id, length: 10_000, confirmed: ByteRangeSet(), hasValidator: true, fills: [], readahead: 300),
                       .startFill(first: 100, last: 499, shorten: [], isResume: false), "block 100-199, then 300 more")
        var unbounded = machine()
        let u = unbounded.open(priority: .playback, fetchOnly: false)
        unbounded.read(u, from: 150, to: Int.max)
        XCTAssertEqual(unbounded.need(u, length: 10_000, confirmed: ByteRangeSet(), hasValidator: true, fills: [], readahead: nil),
                       .startFill(first: 100, last: 9_999, shorten: [], isResume: false), "off: to the end asked")
    }

    func test_need_neverAsksPastWhatTheResponseAsked() {
        var m = machine()
        let id = m.open(priority: .playback, fetchOnly: false)
        m.read(id, from: 0, to: 250)
        XCTAssertEqual(m.need(id, length: 10_000, confirmed: ByteRangeSet(), hasValidator: true, fills: [], readahead: 1_000),
                       .startFill(first: 0, last: 299, shorten: [], isResume: false))
    }

    func test_need_ofADownload_isNotBounded() {
        var m = machine()
        let id = m.open(priority: .download, fetchOnly: true)
        m.read(id, from: 0, to: Int.max)
        XCTAssertEqual(m.need(id, length: 10_000, confirmed: ByteRangeSet(), hasValidator: true, fills: [], readahead: 100),
                       .startFill(first: 0, last: 9_999, shorten: [], isResume: false))
    }

    func test_readaheadLimit_followsTheFurthestResponse_andDownloadsLiftIt() {
        var m = machine()
        XCTAssertNil(m.readaheadLimit(300), "nobody reads: the rule for unread fills applies")
        let a = m.open(priority: .playback, fetchOnly: false), b = m.open(priority: .playback, fetchOnly: false)
        m.read(a, from: 50, to: Int.max)
        m.read(b, from: 420, to: Int.max)
        XCTAssertEqual(m.readaheadLimit(300), 800, "block 400-499 of the furthest, then 300")
        m.advance(a, to: 950)
        XCTAssertEqual(m.readaheadLimit(300), 1_300)
        _ = m.open(priority: .download, fetchOnly: true)
        XCTAssertNil(m.readaheadLimit(300), "a download fetches what it asked")
    }

    func test_readaheadEnd_clampsAndNeverOverflows() {
        let m = machine()
        XCTAssertEqual(m.readaheadEnd(from: 0, to: Int.max, 0), 100, "0: the block the reader is in")
        XCTAssertEqual(m.readaheadEnd(from: 99, to: 150, 1_000), 150)
        XCTAssertEqual(m.readaheadEnd(from: 5, to: Int.max, nil), Int.max)
        XCTAssertEqual(m.readaheadEnd(from: Int.max - 10, to: Int.max, Int.max), Int.max)
    }
}
