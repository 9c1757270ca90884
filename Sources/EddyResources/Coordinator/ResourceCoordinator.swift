import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// The one owner of a cached resource's live state: its fills, the tickets of everyone who needs
/// its bytes (responses, prefetches, download jobs), the revalidation in flight, pauses of a full
/// cache, and version changes. Attached to `CachedResource.attachment`. The decisions are
/// `ResourceStateMachine`'s; this class performs them (starts fills, arms timers, reports to
/// tickets). Consumers are woken by events when fills write, never by polling.
///
/// Everything runs on the resource's home loop; nothing here reaches for a global one.
package final class ResourceCoordinator {
    unowned let coordinators: Coordinators
    /// The resource; it owns this coordinator (tickets and fills keep it alive while they run).
    package unowned let resource: CachedResource
    /// Written here only: tickets and fills report to this class (issue 30).
    package private(set) var machine: ResourceStateMachine
    /// Fills in flight, in start order; fills join and leave by reporting (`fillAttached`, `fillEnded`).
    package private(set) var fills: [FillSession] = []
    private(set) var tickets: [Int: Ticket] = [:]
    /// A conditional request in flight for this resource; others wait for its answer. Set by
    /// `Coordinators.joinRevalidation` (`revalidationStarted`), cleared when it ends.
    package private(set) var revalidation: FillSession?

    /// Freshness for (version, storedAt), cached: parsing dates on every hit is measurable.
    var freshnessCache: (version: Int, storedAt: Int, freshness: Freshness)?
    /// Response headers for (version, storedAt), without Age.
    var headerCache: (version: Int, storedAt: Int, headers: HeaderBlock)?
    /// The stored playlist as last rewritten: the next response for the same URL and form reuses it.
    package var rewrittenPlaylist: RewrittenPlaylist?
    /// Whether the resource is a playlist, for (version, complete): sniffing needs the first bytes.
    private(set) var playlistCheck: (version: Int, complete: Bool, isPlaylist: Bool)?
    /// The playlist kind, once this resource has been read as an HLS playlist.
    package private(set) var hlsKind: PlaylistKind?
    /// When eddy last got this playlist from the origin (monotonic seconds), for live freshness.
    package var playlistFetchedAt: Double?
    /// The body held in memory (small complete resources), see `MemoryTier`.
    private(set) var memory: MemoryTier.Entry?
    /// The origin's last error answer to a fill of this resource, until it sends bytes again: a
    /// download job whose ticket gives up reads its status and Retry-After here.
    package var lastRefusal: OriginRefusal?

    init(resource: CachedResource, coordinators: Coordinators) {
        self.resource = resource
        self.coordinators = coordinators
        machine = ResourceStateMachine(lookahead: Coordinators.lookahead, behind: Coordinators.behind,
                                       maxAttempts: Coordinators.maxAttempts)
    }

    // MARK: - tickets

    /// Opens a ticket on this resource. `fetchOnly` tickets (prefetch, downloads) are moved along
    /// by the coordinator and told `.done` when their range is in the cache.
    package func open(priority: FetchPriority, fetchOnly: Bool = false, range: Range<Int>? = nil,
              fetch: FetchContext, consumer: TicketConsumer?) -> Ticket {
        let id = machine.open(priority: priority, fetchOnly: fetchOnly)
        let t = Ticket(id: id, priority: priority, resource: resource, coordinator: self, fetch: fetch, consumer: consumer)
        tickets[id] = t
        if let range { machine.read(id, from: range.lowerBound, to: range.upperBound) }
        if fetchOnly { advanceFetchOnly() }
        return t
    }

    /// Ticket `id` reads from `position` up to `end` (exclusive).
    func read(_ id: Int, from position: Int, to end: Int) { machine.read(id, from: position, to: end) }

    /// Ticket `id`'s consumer has sent up to `position`; `end` when its last needed byte moved.
    func advance(_ id: Int, to position: Int, end: Int?) {
        machine.advance(id, to: position, end: end)
        coordinators.readerMoved(self) // a fill paused by readahead may go on
        extendAhead(id)
    }

    // MARK: - what fills report

    func revalidationStarted(_ fill: FillSession) { revalidation = fill }

    /// The revalidation `fill` ended (its head came, or it failed): later requests start their own.
    func revalidationEnded(_ fill: FillSession) { if revalidation === fill { revalidation = nil } }

    /// `fill`'s head was taken for this resource (started `startedAt`); it writes its bytes from now
    /// on. `wholeBody`: asked for a range, the origin sent the whole body from byte 0.
    func fillAttached(_ fill: FillSession, startedAt: Double, wholeBody: Bool) {
        noteOriginAnswer(at: startedAt)
        machine.originAnswered(wholeBody: wholeBody)
        lastRefusal = nil
        if !fills.contains(where: { $0 === fill }) { fills.append(fill) }
    }

    /// `fill` failed: at `stalledAt` when the origin went silent for the stall timeout (responses
    /// waiting here stop instead of retrying into the same silence), with the origin's error
    /// answer if it sent one.
    func fillFailed(_ fill: FillSession, stalledAt: Int?, refusal: OriginRefusal?, byOrigin: Bool) {
        revalidationEnded(fill)
        machine.fillFailed(stalledAt: stalledAt, byOrigin: byOrigin)
        if let refusal { lastRefusal = refusal }
        fillEnded(fill)
    }

    /// `fill` ended, done or not: tickets waiting on it look again.
    func fillEnded(_ fill: FillSession) {
        fills.removeAll { $0 === fill }
        wake()
    }

    func close(_ t: Ticket) {
        machine.close(t.id)
        tickets[t.id] = nil
    }

    /// The origin answered a Range request for this resource with the whole body (see
    /// `ResourceStateMachine.originIgnoresRange`): a download reads it once, sequentially.
    package var originIgnoresRange: Bool { machine.originIgnoresRange }

    /// True while anything uses the resource: it is then never evicted as a whole.
    package var isInUse: Bool { !tickets.isEmpty || !fills.isEmpty || revalidation != nil }
    /// True when some ticket is open: fills run to their end instead of stopping at a block.
    var hasTickets: Bool { !tickets.isEmpty }

    /// Bytes readable at `offset`: confirmed ones, or ones a fill of this version has written.
    func available(at offset: Int) -> Int {
        let r = resource
        var n = r.confirmed.contiguousLength(from: offset)
        for f in fills where f.version == r.version && f.state == .streaming && f.unconfirmedWindow.contains(offset) {
            n = Swift.max(n, f.cursor - offset)
        }
        return n
    }

    /// Ticket `t` found nothing readable at its position: performs the policy's answer.
    func need(_ t: Ticket) {
        let r = resource
        if t.priority > .prefetch { coordinators.waiterArrived(self, player: t.priority == .playback) }
        switch machine.need(t.id, length: r.meta.length, confirmed: r.confirmed,
                            hasValidator: r.meta.ifRangeValidator != nil, fills: fillViews(), readahead: coordinators.readahead) {
        case let .wait(coalesced):
            if coalesced { coordinators.metrics.coalesced += 1 } // reading bytes another's fetch brings
        case .streamUncached:
            t.report(.cacheUnwritable)
            if machine.isFetchOnly(t.id) { t.close() }
        case let .giveUp(reason):
            t.report(.failed(reason))
            if machine.isFetchOnly(t.id) { t.close() }
        case let .retry(delay):
            let timer = LoopTimer(loop: coordinators.loop) { [weak self, weak t] in
                guard let self, let t, t.isOpen else { return }
                t.retryTimer = nil
                self.machine.retryTimerFired(t.id)
                // A fetch-only ticket (a download's) has no response to look again on `.available`:
                // it must ask again itself, or it waits until an unrelated fill wakes the resource,
                // which may be never (issue 28: jobs stuck after a cut body on a resumed range).
                if self.machine.isFetchOnly(t.id) { self.advanceFetchOnly() } else { self.poke(t) }
            }
            t.retryTimer = timer
            timer.schedule(after: delay)
        case let .startFill(first, last, shorten, isResume):
            if isResume { coordinators.metrics.resumes += 1 }
            startFill(first: first, last: last, shorten: shorten, for: t)
        }
    }

    /// Starts a fill for ticket `t` at the block holding `offset`, up to `end` at most (see
    /// `ResourceStateMachine.span`), outside the retry policy: a response checking the origin
    /// before its head (see `CacheExchange.validateBeforeHead`).
    @discardableResult
    package func fetch(at offset: Int, end: Int, for t: Ticket) -> FillSession {
        // A response's fill asks at most `readahead` past where it starts (issue 58).
        let end = t.priority == .playback && !machine.isFetchOnly(t.id) ? machine.readaheadEnd(from: offset, to: end, coordinators.readahead) : end
        let s = machine.span(at: offset, end: end, length: resource.meta.length, confirmed: resource.confirmed, fills: fillViews())
        return startFill(first: s.first, last: s.last, shorten: s.shorten, for: t)
    }

    @discardableResult
    private func startFill(first: Int, last: Int?, shorten: [Int], for t: Ticket) -> FillSession {
        for f in fills where shorten.contains(f.id) { f.shorten(to: first) }
        let fill = coordinators.startFill(kind: .range, fetch: t.fetch, resource: resource,
                                          asked: .span(first: first, last: last), startedBy: t.id)
        fills.append(fill)
        fill.begin()
        return fill
    }

    /// Tells a ticket to look again (after a retry delay, or when woken).
    private func poke(_ t: Ticket) {
        let pos = machine.position(of: t.id)
        t.report(.available(upTo: pos + available(at: pos)))
    }

    /// Fills wrote or ended: waiting tickets look again; fetch-only tickets move on.
    func wake() {
        if machine.hasFetchOnly { advanceFetchOnly() }
        guard machine.hasWaiting else { return }
        for id in machine.takeWaiting() {
            guard let t = tickets[id], !machine.isFetchOnly(id) else { continue }
            poke(t)
        }
    }

    private func advanceFetchOnly() {
        let (done, needing, moved) = machine.advanceFetchOnly(confirmed: resource.confirmed, length: resource.meta.length)
        for id in done {
            let t = tickets.removeValue(forKey: id)
            t?.report(.done)
            t?.close()
        }
        // Progress, pushed: a download hears of its bytes as they are confirmed, not by asking.
        for id in moved { if let t = tickets[id] { t.report(.available(upTo: machine.position(of: id))) } }
        for id in needing { if let t = tickets[id], t.retryTimer == nil { need(t) } }
    }

    /// Closes the prefetch tickets (their fill was stopped as unwanted).
    func dropPrefetches() {
        for t in tickets.values where t.priority == .prefetch {
            t.report(.failed("prefetch stopped"))
            t.close()
        }
    }

    // MARK: - fill events

    /// The fills as the policy sees them.
    func fillViews() -> [ResourceStateMachine.Fill] {
        fills.map { .init(id: $0.id, version: $0.version, startedBy: $0.startedBy, machine: $0.machineState) }
    }

    /// What block eviction must spare.
    func protectedRanges() -> [Range<Int>] { machine.protectedRanges(fills: fillViews()) }

    /// True when a fill should pause: the cache is full and no response or download waits.
    func shouldThrottle() -> Bool { machine.shouldThrottle(overBudget: coordinators.isOverBudget) }

    /// A fill of a new version replaced the stored bytes: every other fill stops, and responses
    /// reading the old version learn of it.
    func versionChanged(by fill: FillSession) {
        for f in fills where f !== fill { f.cancel() }
        for id in machine.readingTickets() { tickets[id]?.report(.newVersion) }
        wake()
    }

    /// An unsafe request changed the resource (RFC 9111 section 4.4): an idle one is removed; one
    /// in use is marked stale beyond any stale-serving allowance, so the next request validates it
    /// with the origin while responses reading it now finish.
    package func invalidate() {
        if isInUse {
            var m = resource.meta
            m.storedAt = 0
            coordinators.cache.refresh(resource, meta: m)
        } else {
            coordinators.cache.remove(resource)
        }
    }

    /// Forgets the resource (the origin no longer serves it, a purge, a refresh's new version
    /// taking its place). Responses reading it go on with what it holds, from its open file;
    /// bytes it lacks come as for an unwritable cache (`cacheUnwritable`: straight from the
    /// origin, checked with If-Range), never through a fill of it: none starts, and a fill
    /// running stops at its next write, refused (its head's waiters look the URL up again).
    package func drop() {
        coordinators.cache.remove(resource) // kept readable while in use (`CacheStore.isInUse`)
        if isInUse { machine.storeFailed() }
        wake()
    }

    /// A cache write failed (disk full, unwritable directory): the fill stopped; readers may go on uncached.
    func storeFailed() {
        machine.storeFailed()
        wake()
    }

    /// Records that the origin described this resource as of `time` (for live playlist freshness).
    func noteOriginAnswer(at time: Double) {
        playlistFetchedAt = Swift.max(playlistFetchedAt ?? 0, time)
    }
}

extension ResourceCoordinator {
    /// Tickets open on the resource (responses, prefetch, downloads), for `GET /api/fills`.
    package var ticketCount: Int { tickets.count }
}

extension ResourceCoordinator {
    /// Whether reading the stored body found a playlist, for this version and completeness.
    func checkedPlaylist(_ isPlaylist: Bool, version: Int, complete: Bool) {
        playlistCheck = (version, complete, isPlaylist)
    }

    /// The stored body was read as an HLS playlist of `kind`.
    package func learned(_ kind: PlaylistKind) { hlsKind = kind }

    /// The body now held in memory for this resource (nil: none), see `MemoryTier`.
    func holdInMemory(_ entry: MemoryTier.Entry?) { memory = entry }
}
