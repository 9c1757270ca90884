import EddyLoop
import EddyResources

/// A fill in flight, as `GET /api/fills` shows it: what it fetches, how far it got, how fast,
/// and who waits on it.
package struct FillInfo: Encodable {
    var id: Int
    var url: String
    var kind: String
    /// Half-open byte range asked of the origin (`end` nil: to the end) and the next byte expected.
    var start: Int
    var end: Int?
    var cursor: Int
    var bytes: Int
    /// Bytes per second since it started.
    var rate: Double
    var seconds: Double
    /// Responses waiting for its head and tickets open on its resource (responses, prefetch,
    /// downloads); the highest priority among them.
    var waiting: Int
    var priority: String?

    package init(_ f: FillSession, now: Double) {
        id = f.id
        url = f.url.description
        kind = "\(f.kind)"
        start = f.start
        end = f.end
        cursor = f.cursor
        bytes = max(0, f.cursor - f.start)
        seconds = max(0, now - f.startedAt)
        rate = seconds > 0 ? (Double(bytes) / seconds).rounded() : 0
        waiting = f.headWaiterCount + (f.resource.map { f.coordinators.of($0).ticketCount } ?? 0)
        priority = f.wantedPriority.map { "\($0)" }
    }
}
