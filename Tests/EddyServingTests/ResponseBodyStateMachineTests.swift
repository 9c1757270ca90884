import EddyCore
import XCTest
@testable import EddyServing

/// A cached response's body loop as a value: what it sends, waits for and tells the ticket, with
/// no socket, file or fill.
final class ResponseBodyStateMachineTests: XCTestCase {
    private typealias Action = ResponseBodyStateMachine.Action

    private func machine(_ pieces: [ResponsePiece], step: Int = 100, highWater: Int = 1000) -> ResponseBodyStateMachine {
        var m = ResponseBodyStateMachine(stepBytes: step, highWater: highWater)
        m.plan(pieces)
        _ = m.start()
        return m
    }

    /// Runs the machine with `readable` bytes confirmed from 0, performing sends, until it waits
    /// or completes; returns every action.
    private func drive(_ m: inout ResponseBodyStateMachine, length: Int?, readableTo readable: Int, queued: Int = 0) -> [Action] {
        var actions: [Action] = []
        while true {
            let a = m.next(queued: queued, length: length) { Swift.max(0, readable - $0) }
            actions.append(a)
            switch a {
            case let .send(_, count): m.sent(count)
            case .write, .seek: continue
            case .waitForDrain, .waitForBytes, .complete: return actions
            }
        }
    }

    func test_wholeRange_goesOutInSteps_thenCompletes() {
        var m = machine([.resource(0..<250)])
        XCTAssertEqual(m.start().position, 0)
        XCTAssertEqual(drive(&m, length: 250, readableTo: 250),
                       [.send(offset: 0, count: 100), .send(offset: 100, count: 100), .send(offset: 200, count: 50), .complete])
        XCTAssertEqual(m.bytesServed, 250)
    }

    func test_startsAtTheFirstPiece_andTellsTheTicketItsEnd() {
        var m = ResponseBodyStateMachine(stepBytes: 100, highWater: 1000)
        m.plan([.resource(500..<600), .bytes([1]), .resource(900..<1000)])
        let start = m.start()
        XCTAssertEqual(start.position, 500)
        XCTAssertEqual(start.neededEnd, 1000)
    }

    /// Bytes not yet readable: it waits at the position, bounded by the piece's end, and goes on
    /// from there once a fill brought more.
    func test_waitsForMissingBytes_thenResumes() {
        var m = machine([.resource(0..<300)])
        XCTAssertEqual(drive(&m, length: 300, readableTo: 150),
                       [.send(offset: 0, count: 100), .send(offset: 100, count: 50), .waitForBytes(end: 300)])
        XCTAssertEqual(m.position, 150)
        XCTAssertEqual(m.pieceEnd, 300)
        XCTAssertEqual(drive(&m, length: 300, readableTo: 300),
                       [.send(offset: 150, count: 100), .send(offset: 250, count: 50), .complete])
    }

    /// A full connection queue stops the loop before anything else, literal pieces included.
    func test_fullQueue_waitsForDrain() {
        var m = machine([.bytes([1, 2]), .resource(0..<10)], highWater: 64)
        XCTAssertEqual(m.next(queued: 64, length: 10) { _ in 10 }, .waitForDrain)
        XCTAssertEqual(m.bytesServed, 0)
        XCTAssertEqual(m.next(queued: 63, length: 10) { _ in 10 }, .write([1, 2]))
    }

    /// Multipart: boundaries are written between ranges, and the ticket is moved to each range
    /// as it begins, with what is still needed after it.
    func test_multipart_writesBoundaries_andSeeksEachRange() {
        var m = machine([.bytes([0xA]), .resource(10..<20), .bytes([0xB]), .resource(50..<60), .bytes([0xC])])
        XCTAssertEqual(drive(&m, length: 100, readableTo: 100), [
            .write([0xA]), .seek(position: 10, neededEnd: 60), .send(offset: 10, count: 10),
            .write([0xB]), .seek(position: 50, neededEnd: 60), .send(offset: 50, count: 10),
            .write([0xC]), .complete,
        ])
        XCTAssertEqual(m.bytesServed, 20)
    }

    /// A range past the stored length ends at the length; an unknown length (chunked) waits at
    /// its end rather than completing, until the length is known.
    func test_lengthBoundsTheRange_andAnUnknownLengthWaits() {
        var m = machine([.resource(0..<Int.max)])
        XCTAssertEqual(drive(&m, length: nil, readableTo: 40), [.send(offset: 0, count: 40), .waitForBytes(end: Int.max)])
        XCTAssertEqual(drive(&m, length: 40, readableTo: 40), [.complete])
        var short = machine([.resource(0..<1000)])
        XCTAssertEqual(drive(&short, length: 30, readableTo: 30), [.send(offset: 0, count: 30), .complete])
    }

    /// A send found damaged is not reported: the next step asks again at the same position.
    func test_unsentStep_isAskedAgain() {
        var m = machine([.resource(0..<100)])
        XCTAssertEqual(m.next(queued: 0, length: 100) { _ in 100 }, .send(offset: 0, count: 100))
        XCTAssertEqual(m.next(queued: 0, length: 100) { _ in 0 }, .waitForBytes(end: 100))
        XCTAssertEqual(m.position, 0)
        XCTAssertEqual(m.bytesServed, 0)
    }

    func test_emptyPlan_completesAtOnce_andWholeRepliesCount() {
        var m = machine([])
        XCTAssertEqual(m.next(queued: 0, length: 0) { _ in 0 }, .complete)
        m.servedWhole(1234)
        XCTAssertEqual(m.bytesServed, 1234)
        var p = machine([])
        p.waitForPlaylist(at: 70, end: 200)
        XCTAssertEqual(p.position, 70)
        XCTAssertEqual(p.pieceEnd, 200)
    }

    func test_isOnResource_followsThePieces() {
        var m = machine([.bytes([1]), .resource(0..<1)])
        XCTAssertFalse(m.isOnResource)
        _ = m.next(queued: 0, length: 1) { _ in 1 }
        XCTAssertTrue(m.isOnResource)
    }
}
