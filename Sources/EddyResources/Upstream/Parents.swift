import EddyCore
import EddyLoop
import Logging

/// The parent tier (`parents:`, `--parent`), shared by every loop: each upstream request goes to
/// its cache key's parent by rendezvous hash (`ParentPool`), a parent that fails is marked down
/// and probed again after a capped backoff, and with every parent down `parent_go_direct` says
/// whether the origin is asked itself. One lock around the value.
package final class Parents: @unchecked Sendable {
    private let pool: Locked<ParentPool>
    private let logger: Logger
    /// Seconds one probe of a parent that was down has to answer before another request tries
    /// it: the connect timeout.
    private let probeWindow: Double

    package init(_ urls: [UpstreamURL], goDirect: Bool, probeWindow: Double, logger: Logger) {
        pool = Locked(ParentPool(urls, goDirect: goDirect))
        (self.probeWindow, self.logger) = (probeWindow, logger)
    }

    /// Whether the parent at `url` is marked down now.
    func isDown(_ url: UpstreamURL) -> Bool {
        let now = EventLoop.monotonic()
        return pool.withLock { p in p.parents.firstIndex { $0.url == url }.map { p.isDown($0, now: now) } ?? false }
    }

    /// Whether a parent other than those `request` passed over is up for its key: then an error
    /// answer from the origin's side (502, 503, 504) is worth asking that parent about.
    func hasAnother(for request: UpstreamRequest) -> Bool {
        let now = EventLoop.monotonic(), url = Parents.hashed(request)
        return pool.withLock { p in p.next(for: url, now: now, skipping: Parents.indices(of: request.passedOver, in: p)) != nil }
    }

    /// Points `request` at its key's parent (`parentKey`, else its URL's), or marks it
    /// unavailable; `report` is then to be set as its transfer's `parentOutcome`.
    func route(_ request: inout UpstreamRequest) -> ((Bool) -> Void)? {
        let now = EventLoop.monotonic()
        let url = Parents.hashed(request)
        let passedOver = request.passedOver
        let (route, parentURL) = pool.withLock { p -> (ParentPool.Route, UpstreamURL?) in
            let r = p.route(url, now: now, probe: probeWindow, skipping: Parents.indices(of: passedOver, in: p))
            if case let .parent(i) = r { return (r, p.parents[i].url) }
            return (r, nil)
        }
        switch route {
        case .direct: return nil
        case .unavailable:
            request.unavailable = "every parent is down and parent_go_direct is false"
            return nil
        case let .parent(i):
            request.parent = parentURL
            return { [self] ok in note(i, ok) }
        }
    }

    /// The URL part of a key, as the cache's stripes take it: a variant (`VaryKey`) or a refresh's
    /// staged version (`Coordinators.stagingKey`) has the same parent as its URL.
    private static func hashed(_ request: UpstreamRequest) -> String {
        let key = request.parentKey ?? request.url.description
        return key.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? key
    }

    private static func indices(of urls: [UpstreamURL], in pool: ParentPool) -> Set<Int> {
        Set(urls.compactMap { u in pool.parents.firstIndex { $0.url == u } })
    }

    private func note(_ i: Int, _ ok: Bool) {
        let now = EventLoop.monotonic()
        let (wasDown, url, failures) = pool.withLock { p -> (Bool, UpstreamURL, Int) in
            let before = p.parents[i].failures > 0
            if ok { p.answered(i) } else { p.failed(i, now: now) }
            return (before, p.parents[i].url, p.parents[i].failures)
        }
        if !ok && !wasDown {
            logger.warning("parent down; its keys go to the next parent", metadata: ["parent": "\(url)"])
        } else if ok && wasDown {
            logger.info("parent up again", metadata: ["parent": "\(url)"])
        } else if !ok {
            logger.debug("parent probe failed", metadata: ["parent": "\(url)", "failures": "\(failures)"])
        }
    }

    /// Each parent's state, for the admin API and logs.
    package var snapshot: ParentPool { pool.withLock { $0 } }
}
