import EddyCore

/// The per-minute windows and first-byte histograms of answered requests, shared by every loop:
/// each loop records its responses here as they finish, so `/api/cache` and `/metrics` (on the
/// main loop) see a response as soon as its client could ask about it. Behind a mutex held only
/// to record or copy.
package final class RequestStats: @unchecked Sendable {
    private struct State {
        var rolling = RollingStats()
        // Three fields rather than a dictionary: no hashing of the kind under the mutex.
        var hit = Histogram(), miss = Histogram(), partial = Histogram()
    }
    private let state = Locked(State())

    package init() {}

    /// Records one response of `kind` ("hit", "miss" or "partial"), with its first byte's delay
    /// when it sent one.
    func record(kind: String, now: Int, bytesServed: Int, bytesFromCache: Int, firstByte: Double?) {
        state.withLock { s in
            s.rolling.record(now: now, hit: kind == "hit", bytesServed: bytesServed, bytesFromCache: bytesFromCache)
            guard let firstByte else { return }
            switch kind {
            case "hit": s.hit.observe(firstByte)
            case "miss": s.miss.observe(firstByte)
            case "partial": s.partial.observe(firstByte)
            default: break
            }
        }
    }

    /// The per-minute windows as they are now.
    package var rolling: RollingStats { state.withLock { $0.rolling } }

    /// The first-byte histograms as they are now, by kind.
    package var firstByte: [String: Histogram] { state.withLock { ["hit": $0.hit, "miss": $0.miss, "partial": $0.partial] } }
}
