import EddyCore

/// The per-minute windows and first-byte histograms of answered requests, shared by every loop:
/// each loop records its responses here as they finish, so `/api/cache` and `/metrics` (on the
/// main loop) see a response as soon as its client could ask about it. Behind a mutex held only
/// to record or copy.
package final class RequestStats: @unchecked Sendable {
    private struct State {
        var rolling = RollingStats()
        var firstByte: [String: Histogram] = ["hit": Histogram(), "miss": Histogram(), "partial": Histogram()]
    }
    private let state = Locked(State())

    package init() {}

    /// Records one response of `kind` ("hit", "miss" or "partial"), with its first byte's delay
    /// when it sent one.
    func record(kind: String, now: Int, bytesServed: Int, bytesFromCache: Int, firstByte: Double?) {
        state.withLock { s in
            s.rolling.record(now: now, hit: kind == "hit", bytesServed: bytesServed, bytesFromCache: bytesFromCache)
            if let firstByte { s.firstByte[kind]?.observe(firstByte) }
        }
    }

    /// The per-minute windows as they are now.
    package var rolling: RollingStats { state.withLock { $0.rolling } }

    /// The first-byte histograms as they are now, by kind.
    package var firstByte: [String: Histogram] { state.withLock { $0.firstByte } }
}
