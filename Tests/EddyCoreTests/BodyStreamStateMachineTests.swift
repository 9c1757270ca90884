import XCTest
@testable import EddyCore

/// The bounded buffer between a client's connection and an upstream transfer: bytes come out in
/// order, the producer pauses at capacity and is woken at half, the consumer is woken once per
/// wait, and an abandoned or failed body never holds anyone.
final class BodyStreamStateMachineTests: XCTestCase {
    private func append(_ m: inout BodyStreamStateMachine, _ bytes: [UInt8]) -> (paused: Bool, wake: BodyStreamStateMachine.Wake) {
        bytes.withUnsafeBytes { m.append($0) }
    }

    private func read(_ m: inout BodyStreamStateMachine, max: Int) -> ([UInt8], BodyStreamStateMachine.Read, BodyStreamStateMachine.Wake) {
        var out = [UInt8](repeating: 0, count: max)
        let (r, wake) = out.withUnsafeMutableBytes { m.read(into: $0) }
        if case let .bytes(n) = r { return (Array(out[0..<n]), r, wake) }
        return ([], r, wake)
    }

    func test_bytesComeOutInOrderWhateverTheSizesOfAppendsAndReads() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var m = BodyStreamStateMachine(capacity: 1 << 20)
            let body = (0..<Int.random(in: 0..<5000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var fed = 0, out: [UInt8] = []
            while fed < body.count || m.buffered > 0 {
                if fed < body.count, Bool.random(using: &rng) {
                    let n = min(Int.random(in: 1...700, using: &rng), body.count - fed)
                    _ = append(&m, Array(body[fed..<fed + n]))
                    fed += n
                } else {
                    out += read(&m, max: Int.random(in: 1...900, using: &rng)).0
                }
            }
            XCTAssertEqual(m.finish(), .none)
            XCTAssertEqual(read(&m, max: 10).1, .end)
            XCTAssertEqual(out, body)
            XCTAssertEqual(m.received, body.count)
        }
    }

    func test_theProducerPausesAtCapacity_andIsWokenOnceAtHalf() {
        var m = BodyStreamStateMachine(capacity: 100)
        XCTAssertEqual(append(&m, Array(repeating: 1, count: 60)).paused, false)
        XCTAssertEqual(append(&m, Array(repeating: 2, count: 60)).paused, true) // 120 held: stop reading
        XCTAssertEqual(read(&m, max: 60).2, .none) // 60 held: above half
        let (bytes, r, wake) = read(&m, max: 10)
        XCTAssertEqual(r, .bytes(10))
        XCTAssertEqual(bytes, Array(repeating: 2, count: 10))
        XCTAssertEqual(wake, .producer)
        XCTAssertEqual(read(&m, max: 10).2, .none) // once
    }

    func test_theConsumerIsWokenOnlyAfterAWait_andOnlyOnce() {
        var m = BodyStreamStateMachine(capacity: 100)
        XCTAssertEqual(append(&m, [1]).wake, .none) // nobody waits
        XCTAssertEqual(read(&m, max: 10).1, .bytes(1))
        XCTAssertEqual(read(&m, max: 10).1, .wait)
        XCTAssertEqual(append(&m, []).wake, .none) // nothing new
        XCTAssertEqual(append(&m, [2]).wake, .consumer)
        XCTAssertEqual(append(&m, [3]).wake, .none)
        XCTAssertEqual(read(&m, max: 10).0, [2, 3])
        XCTAssertEqual(read(&m, max: 10).1, .wait)
        XCTAssertEqual(m.finish(), .consumer) // the end is news too
        XCTAssertEqual(read(&m, max: 10).1, .end)
    }

    func test_aFailedBodyReadsAsFailed_evenWithBytesHeld() {
        var m = BodyStreamStateMachine(capacity: 100)
        _ = append(&m, [1, 2, 3])
        XCTAssertEqual(read(&m, max: 1).1, .bytes(1))
        XCTAssertEqual(m.fail(), .none)
        XCTAssertEqual(read(&m, max: 10).1, .failed)
        XCTAssertEqual(m.buffered, 0)
        XCTAssertEqual(m.finish(), .none) // no end after a failure
        XCTAssertEqual(read(&m, max: 10).1, .failed)
        var w = BodyStreamStateMachine(capacity: 100)
        XCTAssertEqual(read(&w, max: 10).1, .wait)
        XCTAssertEqual(w.fail(), .consumer) // a waiting consumer learns of it
    }

    func test_anAbandonedBodyWakesAPausedProducer_andDropsWhatFollows() {
        var m = BodyStreamStateMachine(capacity: 10)
        XCTAssertTrue(append(&m, Array(repeating: 0, count: 10)).paused)
        XCTAssertEqual(m.abandon(), .producer)
        XCTAssertEqual(m.buffered, 0)
        XCTAssertEqual(append(&m, Array(repeating: 0, count: 1000)).paused, false) // never full again
        XCTAssertEqual(m.buffered, 0)
        XCTAssertEqual(m.received, 1010)
        XCTAssertEqual(m.abandon(), .none)
        var idle = BodyStreamStateMachine(capacity: 10)
        XCTAssertEqual(idle.abandon(), .none) // nobody to wake
    }

    func test_nothingIsTakenAfterTheEnd() {
        var m = BodyStreamStateMachine(capacity: 10)
        _ = append(&m, [1])
        XCTAssertEqual(m.finish(), .none)
        XCTAssertEqual(append(&m, [2]).paused, false)
        XCTAssertEqual(read(&m, max: 10).0, [1])
        XCTAssertEqual(read(&m, max: 10).1, .end)
        XCTAssertEqual(m.received, 1)
    }
}
