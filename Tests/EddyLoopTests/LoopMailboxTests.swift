import EddyCore
import EddyLoop
import Glibc
import XCTest

/// The mailbox and worker thread on real event loops and real threads: jobs posted from other
/// threads run on the loop's thread, each once, in each poster's order.
final class LoopMailboxTests: XCTestCase {
    private struct Record {
        var seen: [[Int]] = []
        var wrongThread = 0
    }

    func testJobsFromManyThreadsRunOnTheLoopThreadInOrder() throws {
        let posters = 4, perPoster = 5_000
        let record = Locked(Record(seen: Array(repeating: [], count: posters)))
        let loopThread = Locked<pthread_t?>(nil)
        let worker = try LoopThread(name: "test-loop") { _, _ in loopThread.withLock { $0 = pthread_self() } }
        var threads: [pthread_t] = []
        final class Job { let run: () -> Void; init(_ run: @escaping () -> Void) { self.run = run } }
        for p in 0..<posters {
            let job = Job {
                for i in 0..<perPoster {
                    worker.mailbox.post {
                        record.withLock { r in
                            r.seen[p].append(i)
                            if pthread_equal(pthread_self(), loopThread.withLock { $0! }) == 0 { r.wrongThread += 1 }
                        }
                    }
                }
            }
            var t = pthread_t()
            XCTAssertEqual(pthread_create(&t, nil, { arg in
                Unmanaged<Job>.fromOpaque(arg!).takeRetainedValue().run()
                return nil
            }, Unmanaged.passRetained(job).toOpaque()), 0)
            threads.append(t)
        }
        for t in threads { pthread_join(t, nil) }
        worker.stop() // runs what was posted before it, then ends the thread
        let r = record.withLock { $0 }
        XCTAssertEqual(r.wrongThread, 0)
        for p in 0..<posters { XCTAssertEqual(r.seen[p], Array(0..<perPoster), "poster \(p)'s jobs, once each, in order") }
    }

    func testAJobPostedFromTheLoopRunsLaterNotInside() throws {
        let order = Locked<[String]>([])
        let worker = try LoopThread(name: "test-loop") { _, _ in }
        worker.mailbox.post {
            worker.mailbox.post { order.withLock { $0.append("inner") } }
            order.withLock { $0.append("outer") }
        }
        // The inner job is posted during the outer one; stop's job comes after both.
        usleep(50_000)
        worker.stop()
        XCTAssertEqual(order.withLock { $0 }, ["outer", "inner"])
    }

    func testASetUpErrorIsThrownAndTheThreadEnds() {
        struct Refused: Error {}
        XCTAssertThrowsError(try LoopThread(name: "test-loop") { _, _ in throw Refused() }) { XCTAssertTrue($0 is Refused) }
    }

    func testAClosedMailboxRefusesJobs() throws {
        let worker = try LoopThread(name: "test-loop") { _, _ in }
        worker.stop()
        worker.mailbox.close()
        XCTAssertFalse(worker.mailbox.post {})
        XCTAssertEqual(worker.mailbox.pending, 0)
    }
}
