import EddyCache
import EddyCore
import EddyLoop
import EddyResources

/// Brings one URL's whole body into the cache through its resource coordinator, for a download
/// job: a discovery fill when nothing is stored (joining one in flight), then a fetch-only ticket
/// at `.download` priority for whatever is missing. A player asking for the same bytes meanwhile
/// shares the same fills, and confirmed blocks of a half-fetched resource (also from before a
/// restart) are never fetched again. With `range` (an EXT-X-BYTERANGE segment), only those bytes
/// are fetched and confirmed. Reports once, on the loop thread.
package final class ResourceFetch: HeadWaiter, TicketConsumer {
    /// How a fetch ended.
    enum Outcome {
        case stored(CachedResource)
        /// With the reason; `status` when the origin answered with an error status, and the
        /// seconds it asked to wait (Retry-After) if it did.
        case failed(String, status: Int?, retryAfter: Double? = nil)
    }

    private let coordinators: Coordinators
    let url: UpstreamURL
    private let checkAddress: Bool
    /// The bytes wanted; nil for the whole body.
    let range: Range<Int>?
    /// Decides whether a stored whole copy must be revalidated before it is used (a live
    /// playlist a recording reloads); nil: a stored copy is used as it is.
    private let revalidate: ((CachedResource) -> Bool)?
    /// The rates its fills keep to while no player reads them (see `FetchContext.limiters`).
    private let limiters: [RateLimiter]
    private var revalidated = false
    private var ticket: Ticket?
    private var fill: FillSession?
    private var done = false
    private var lookups = 0
    private var onDone: ((Outcome) -> Void)?
    /// Held while running: fills and tickets keep their waiters weakly.
    private var keepAlive: ResourceFetch?
    /// When the fetch started (monotonic), for the job's log.
    let startedAt = EventLoop.monotonic()
    /// Told the wanted bytes confirmed so far each time more are (on the loop thread).
    var onProgress: ((Int) -> Void)?
    private var reportedBytes = -1

    package var isWaiting: Bool { !done }
    /// A download's: its wait is not a player's (a rate limit applies to the fill it waits on).
    package var waiterPriority: FetchPriority { .download }

    init(coordinators: Coordinators, url: UpstreamURL, key: String, checkAddress: Bool, range: Range<Int>? = nil, limiters: [RateLimiter] = [],
         revalidate: ((CachedResource) -> Bool)? = nil, askOrigin: Bool = false, onDone: @escaping (Outcome) -> Void) {
        self.askOrigin = askOrigin
        self.coordinators = coordinators
        self.key = key
        self.limiters = limiters
        self.revalidate = revalidate
        self.url = url
        self.checkAddress = checkAddress
        self.range = range
        self.onDone = onDone
    }

    /// The URL's cache key (`TargetResolver.cacheKey`); the fills still ask for `url` whole.
    private let key: String

    /// Starts, or reports at once when the resource is stored whole already.
    func start() {
        guard !done else { return }
        keepAlive = self
        lookups += 1
        // A resource that keeps changing under the fetch is a failure, not a loop.
        guard lookups <= 4 else { return finish(.failed("the resource kept changing while it was fetched", status: nil)) }
        let cache = coordinators.cache
        if let r = cache.lookup(key, now: coordinators.loop.wallClock()), r.meta.status != 0 {
            if r.isComplete {
                if !revalidated, let revalidate, revalidate(r) { return startRevalidation(r) }
                return finishStored(r)
            }
            // Without a validator stored bytes can not be resumed (no If-Range), but a fill running
            // on the resource now (the discovery that stored it) brings the whole body: wait for it.
            if let len = r.meta.length, r.meta.ifRangeValidator != nil || !coordinators.of(r).fills.isEmpty {
                let wanted = range.map { $0.clamped(to: 0..<len) } ?? 0..<len
                if wanted.isEmpty || r.confirmed.contains(wanted) { return finishStored(r) }
                ticket = coordinators.of(r).open(priority: .download, fetchOnly: true, range: wanted, fetch: context, consumer: self)
                return
            }
            // Stored without a validator or length: bytes already there cannot be resumed safely.
            // Dropped through its coordinator, so a response reading them finishes (see `drop`).
            coordinators.of(r).drop()
        }
        // A byte-range segment discovers its resource with its own range widened to whole
        // blocks, so a single-file rendition is fetched segment by segment. Whole blocks, so each
        // block comes from one response and keeps its checksum (a span that stops inside a block
        // is kept, but the block is then completed without one), in one request per block.
        let blocks = CacheStore.blocks
        let asked = range.map {
            RangeResponseCheck.Asked.span(first: blocks.floor($0.lowerBound), last: blocks.lastByte(ofBlockHolding: $0.upperBound - 1))
        }
        fill = coordinators.join(key, for: .download, fetch: context, asked: asked, waiter: self).fill
    }

    /// Asks the origin whether the stored copy is current (a conditional request, RFC 9110
    /// section 13.1), joining a revalidation in flight; the head's outcome starts the lookup again.
    private func startRevalidation(_ r: CachedResource) {
        revalidated = true
        fill = coordinators.joinRevalidation(of: r, fetch: context, asked: .span(first: 0, last: CacheStore.blocks.lastByte(ofBlockHolding: 0)),
                                             waiter: self).fill
    }

    private var context: FetchContext {
        FetchContext(url: url, checkAddress: checkAddress, key: key, base: key, limiters: limiters, askOrigin: askOrigin)
    }
    /// Its fills ask the origin, not a parent's copy (a refresh).
    private let askOrigin: Bool

    /// Stops without reporting (pause, cancel), and stops the fills nobody else wants at once:
    /// a paused download must not go on costing the origin (the unwanted-fill sweep would take
    /// seconds, and a fill that ends its range may not start another).
    func cancel() {
        guard !done else { return }
        done = true
        onDone = nil
        var fills = fill.map { [$0] } ?? []
        if let t = ticket {
            fills += t.coordinator.fills
            t.close()
        }
        for f in fills where f.wantedPriority == nil { f.cancel() }
        ticket = nil
        fill = nil
        keepAlive = nil
    }

    package func headArrived(_ outcome: HeadOutcome) {
        guard !done else { return }
        let head = fill?.head
        fill = nil
        switch outcome {
        case .ready:
            start() // the resource is stored now: read it through a ticket (or it is complete)
        case let .notStorable(transfer, _, why):
            transfer?.cancel()
            if let r = OriginRefusal(head, now: coordinators.loop.wallClock()) {
                finish(.failed("origin answered \(r.status)", status: r.status, retryAfter: r.retryAfter))
            } else {
                finish(.failed("the origin's response can not be stored (\(why ?? "status \(head?.status ?? 0)"))", status: head?.status))
            }
        case let .failed(reason, _):
            let r = OriginRefusal(head, now: coordinators.loop.wallClock())
            finish(.failed(reason, status: r?.status, retryAfter: r?.retryAfter))
        }
    }

    package func ticket(_ ticket: Ticket, reports event: TicketEvent) {
        guard !done else { return }
        switch event {
        case .available:
            // From the ticket reporting: this may come while it is being opened, before `ticket` is set.
            let held = ticket.resource.confirmed
            let bytes = range.map { held.intersection($0).count } ?? held.count
            if bytes != reportedBytes {
                reportedBytes = bytes
                onProgress?(bytes)
            }
        case .done:
            let r = ticket.resource
            ticket.close()
            self.ticket = nil
            finishStored(r)
        case .newVersion:
            ticket.close()
            self.ticket = nil
            start()
        case let .failed(reason):
            let refusal = ticket.coordinator.lastRefusal
            ticket.close()
            self.ticket = nil
            finish(.failed(reason, status: refusal?.status, retryAfter: refusal?.retryAfter))
        case .cacheUnwritable:
            ticket.close()
            self.ticket = nil
            finish(.failed("the cache can not be written (full or failing disk)", status: nil))
        }
    }

    /// A stored response that is not a success (a 404 kept for `negative_ttl`, a cached error) is
    /// the origin's refusal, not the bytes a download wants.
    private func finishStored(_ r: CachedResource) {
        guard (200..<300).contains(r.meta.status) else {
            return finish(.failed("origin answered \(r.meta.status)", status: r.meta.status))
        }
        finish(.stored(r))
    }

    private func finish(_ outcome: Outcome) {
        guard !done else { return }
        done = true
        let cb = onDone
        onDone = nil
        cb?(outcome)
        keepAlive = nil
    }
}
