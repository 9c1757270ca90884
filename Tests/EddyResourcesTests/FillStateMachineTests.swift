import EddyCore
@testable import EddyResources
import XCTest

/// The fill's byte bookkeeping, with 100-byte blocks so the arithmetic is readable.
final class FillStateMachineTests: XCTestCase {
    private let blocks = BlockLayout(size: 100)

    private func streaming(start: Int = 0, end: Int? = nil, bodyStart: Int? = nil, isFull: Bool = false) -> FillStateMachine {
        var m = FillStateMachine(start: start, end: end, blocks: blocks)
        m.headVerified(bodyStart: bodyStart ?? start, isFull: isFull)
        return m
    }

    private func chunk(_ m: inout FillStateMachine, _ n: Int, length: Int? = 1000, readers: Bool = true,
                       prefetch: Bool = false, throttled: Bool = false) -> FillStateMachine.ChunkAction {
        m.chunkArrived(n, length: length, hasReaders: readers, isPrefetch: prefetch, throttled: throttled)
    }

    func test_chunkArrived_withinTheSpan_writesItAllAndConfirmsWholeBlocksAsTheyComplete() {
        var m = streaming(end: 1000)
        XCTAssertEqual(chunk(&m, 150), .write(count: 150))
        XCTAssertEqual(m.written(150, length: 1000).confirm, 0..<100)
        XCTAssertEqual(chunk(&m, 30), .write(count: 30))
        XCTAssertNil(m.written(30, length: 1000).confirm, "block 1 is not complete yet")
        XCTAssertEqual(m.unconfirmedWindow, 100..<180)
        XCTAssertEqual(chunk(&m, 20), .write(count: 20))
        XCTAssertEqual(m.written(20, length: 1000).confirm, 100..<200)
    }

    func test_chunkArrived_crossingTheEnd_isTrimmedAndTheFillIsDone() {
        var m = streaming(start: 200, end: 300)
        XCTAssertEqual(chunk(&m, 250), .write(count: 100))
        let (confirm, done) = m.written(100, length: 1000)
        XCTAssertEqual(confirm, 200..<300)
        XCTAssertTrue(done)
    }

    func test_chunkArrived_whenThrottled_pausesWithoutMoving() {
        var m = streaming(end: 1000)
        XCTAssertEqual(chunk(&m, 50, throttled: true), .pause)
        XCTAssertEqual(m.cursor, 0)
        XCTAssertEqual(chunk(&m, 50), .write(count: 50), "resumed: the same bytes are offered again")
    }

    func test_chunkArrived_beyondTheAnnouncedLength_fails() {
        var m = streaming(start: 900, end: nil)
        XCTAssertEqual(chunk(&m, 101, length: 1000), .fail("origin sent more than the 1000 bytes it announced"))
    }

    func test_lastClientLeavesMidBlock_theFillCompletesItsBlockAndStops() {
        var m = streaming(end: 1000)
        XCTAssertEqual(chunk(&m, 130), .write(count: 130))
        _ = m.written(130, length: 1000)
        XCTAssertEqual(chunk(&m, 100, readers: false), .write(count: 70), "only up to the block boundary")
        XCTAssertEqual(m.end, 200)
        let (confirm, done) = m.written(70, length: 1000)
        XCTAssertEqual(confirm, 100..<200)
        XCTAssertTrue(done)
    }

    func test_lastClientLeavesAtABoundary_theFillStopsWithoutWriting() {
        var m = streaming(end: 1000)
        _ = chunk(&m, 200)
        _ = m.written(200, length: 1000)
        XCTAssertEqual(chunk(&m, 10, readers: false), .finish)
    }

    func test_prefetch_runsOnWithoutReaders() {
        var m = streaming(end: 1000)
        _ = chunk(&m, 130, readers: false, prefetch: true)
        _ = m.written(130, length: 1000)
        XCTAssertEqual(chunk(&m, 100, readers: false, prefetch: true), .write(count: 100))
        XCTAssertEqual(m.end, 1000)
    }

    /// Bytes from an unaligned start came whole from this response: confirmed with the first
    /// block boundary passed; the span's own end inside a block is confirmed once it is done,
    /// and not while the fill may still fail.
    func test_unalignedStartAndEnd_areConfirmedFromTheSpan() {
        var m = streaming(start: 150, end: 450)
        XCTAssertEqual(chunk(&m, 150), .write(count: 150))
        XCTAssertEqual(m.written(150, length: 1000).confirm, 150..<300)
        XCTAssertEqual(chunk(&m, 120), .write(count: 120))
        XCTAssertEqual(m.written(120, length: 1000).confirm, 300..<400)
        XCTAssertEqual(m.unconfirmedWindow, 400..<420)
        XCTAssertEqual(chunk(&m, 100), .write(count: 30))
        let (confirm, done) = m.written(30, length: 1000)
        XCTAssertEqual(confirm, 400..<450)
        XCTAssertTrue(done)
    }

    /// An origin's 206 for a shorter extent than asked (RFC 9110 section 15.3.7) ends the span there.
    func test_aShorterExtent_endsTheSpanWhereItEnds() {
        var m = FillStateMachine(start: 0, end: 1000, blocks: blocks)
        m.headVerified(bodyStart: 0, isFull: false, bodyEnd: 5)
        XCTAssertEqual(m.end, 5)
        XCTAssertEqual(chunk(&m, 5, length: 10), .write(count: 5))
        let (confirm, done) = m.written(5, length: 10)
        XCTAssertEqual(confirm, 0..<5)
        XCTAssertTrue(done)
    }

    func test_shortLastBlock_isConfirmedAtTheLength() {
        var m = streaming(start: 900, end: 950)
        XCTAssertEqual(chunk(&m, 50, length: 950), .write(count: 50))
        let (confirm, done) = m.written(50, length: 950)
        XCTAssertEqual(confirm, 900..<950)
        XCTAssertTrue(done)
    }

    func test_transferEnded_unknownLength_learnsItAndConfirmsTheTail() {
        var m = streaming()
        _ = chunk(&m, 250, length: nil)
        XCTAssertEqual(m.written(250, length: nil).confirm, 0..<200)
        XCTAssertEqual(m.transferEnded(length: nil), .complete(learnedLength: 250, confirm: 200..<250))
    }

    func test_transferEnded_early_failsWithWhereItEnded() {
        var m = streaming(end: 500)
        _ = chunk(&m, 120)
        _ = m.written(120, length: 1000)
        XCTAssertEqual(m.transferEnded(length: 1000), .fail("upstream body ended at 120, expected 500"))
    }

    func test_transferEnded_beforeAnyHead_fails() {
        var m = FillStateMachine(start: 0, end: 100, blocks: blocks)
        XCTAssertEqual(m.transferEnded(length: nil), .fail("upstream ended without a usable response"))
    }

    func test_originIgnoresRange_theWholeBodyIsTakenFromByteZero() {
        var m = FillStateMachine(start: 400, end: 500, blocks: blocks)
        m.headVerified(bodyStart: 0, isFull: true)
        XCTAssertNil(m.end)
        XCTAssertEqual(m.start, 0)
        XCTAssertEqual(chunk(&m, 1000), .write(count: 1000))
        XCTAssertEqual(m.written(1000, length: 1000).confirm, 0..<1000)
    }

    func test_endShortenedToTheCursorByAnotherFill_nextChunkWritesNothingAndIsDone() {
        var m = streaming(end: 1000)
        _ = chunk(&m, 100)
        _ = m.written(100, length: 1000)
        m.shorten(to: 100)
        XCTAssertEqual(chunk(&m, 50), .write(count: 0))
        XCTAssertTrue(m.written(0, length: 1000).done)
    }

    func test_willCover_beforeTheHeadFromStartAfterFromTheCursor() {
        var m = FillStateMachine(start: 100, end: 600, blocks: blocks)
        XCTAssertTrue(m.willCover(250, lookahead: 200))
        XCTAssertFalse(m.willCover(350, lookahead: 200))
        XCTAssertFalse(m.willCover(50, lookahead: 200))
        m.headVerified(bodyStart: 100, isFull: false)
        _ = chunk(&m, 200)
        _ = m.written(200, length: 1000)
        XCTAssertTrue(m.willCover(450, lookahead: 200))
        XCTAssertFalse(m.willCover(600, lookahead: 1000), "past the end")
        m.finish()
        XCTAssertFalse(m.willCover(350, lookahead: 200), "a finished fill covers nothing")
    }

    func test_confirmation_isNeverRepeatedForBlocksAlreadyConfirmed() {
        var m = streaming(end: 1000)
        _ = chunk(&m, 200)
        XCTAssertEqual(m.written(200, length: 1000).confirm, 0..<200)
        XCTAssertNil(m.written(0, length: 1000).confirm)
        _ = chunk(&m, 100)
        XCTAssertEqual(m.written(100, length: 1000).confirm, 200..<300)
    }

    func test_failAndFinish_onlyLeaveActiveStates() {
        var m = streaming(end: 100)
        m.fail("x")
        m.finish()
        XCTAssertEqual(m.state, .failed("x"))
    }

    func test_breakOff_midBlock_confirmsTheBytesWrittenUpToTheCursor() {
        var m = streaming(end: 1000)
        XCTAssertEqual(chunk(&m, 130), .write(count: 130))
        XCTAssertEqual(m.written(130, length: 1000).confirm, 0..<100)
        XCTAssertEqual(m.breakOff("cut"), 100..<130, "the part of block 1 this response wrote")
        XCTAssertEqual(m.state, .failed("cut"))
        XCTAssertNil(m.breakOff("again"), "a failed fill confirms nothing more")
    }

    func test_breakOff_ofAResumeStartingInsideABlock_confirmsFromItsStart() {
        var m = streaming(start: 130, end: 1000)
        XCTAssertEqual(chunk(&m, 40), .write(count: 40))
        XCTAssertNil(m.written(40, length: 1000).confirm)
        XCTAssertEqual(m.breakOff("cut"), 130..<170)
    }

    func test_breakOff_onABoundaryOrBeforeTheBody_confirmsNothing() {
        var m = streaming(end: 1000)
        XCTAssertEqual(chunk(&m, 200), .write(count: 200))
        XCTAssertEqual(m.written(200, length: 1000).confirm, 0..<200)
        XCTAssertNil(m.breakOff("cut"), "everything written was confirmed already")
        var waiting = FillStateMachine(start: 300, end: 1000, blocks: blocks)
        XCTAssertNil(waiting.breakOff("refused"), "no head, no body")
        XCTAssertEqual(waiting.state, .failed("refused"))
    }
}
