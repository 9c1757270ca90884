import EddyCore
import EddyLoop
import Logging

/// Every origin's `OriginHealthStateMachine`, shared by the loops: a failure seen on one loop
/// spares the clients of every other loop the wait. Keyed by scheme, host and port.
package final class OriginHealth: @unchecked Sendable {
    private let table = Locked([String: OriginHealthStateMachine]())
    private let logger: Logger

    package init(logger: Logger) { self.logger = logger }

    static func origin(of url: UpstreamURL) -> String { "\(url.scheme)://\(url.host):\(url.port)" }

    /// True while the origin of `url` is marked unreachable.
    package func isUnreachable(_ url: UpstreamURL) -> Bool {
        table.withLock { $0[OriginHealth.origin(of: url)]?.isUnreachable ?? false }
    }

    /// A failure that says the origin is not there; `why` goes to the log when it marks it.
    package func failed(_ url: UpstreamURL, why: String) {
        let o = OriginHealth.origin(of: url)
        let now = EventLoop.monotonic()
        let marked = table.withLock { $0[o, default: OriginHealthStateMachine()].failed(now: now) }
        if marked { logger.warning("origin unreachable: downloads are served from disk", metadata: ["origin": "\(o)", "why": "\(why)"]) }
    }

    /// The origin answered as it should.
    func answered(_ url: UpstreamURL) {
        let o = OriginHealth.origin(of: url)
        let back = table.withLock { t -> Bool in
            guard t[o] != nil else { return false } // the usual case: nothing to note
            let back = t[o]!.answered()
            t[o] = nil
            return back
        }
        if back { logger.info("origin reachable again", metadata: ["origin": "\(o)"]) }
    }

    /// Whether the caller should probe the origin of `url` now (at most one probe at a time).
    package func claimProbe(_ url: UpstreamURL) -> Bool {
        let o = OriginHealth.origin(of: url)
        let now = EventLoop.monotonic()
        return table.withLock { $0[o]?.claimProbe(now: now) ?? false }
    }
}
