import EddyCache
import EddyCore
import EddyLoop

/// One upstream fetch that writes a resource's bytes into the cache as they arrive.
///
/// Every fill is shared: any response that needs bytes in `start..<end` waits on it (single-flight)
/// instead of fetching them again. Responses read what the fill wrote from the data file, so a slow
/// client never slows the fill, and a fill never buffers for a client.
package final class FillSession {
    package unowned let coordinators: Coordinators
    /// Unique among the loop's fills.
    package let id: Int
    let fetch: FetchContext
    package var url: UpstreamURL { fetch.url }
    package let kind: FillKind
    /// The ticket whose need started this fill, if any (for counting coalesced waits).
    let startedBy: Int?
    /// Where the fill writes and stops, and what each chunk means (see `FillStateMachine`).
    var machine: FillStateMachine {
        didSet { if !machine.state.isActive && oldValue.state.isActive { coordinators.liveFills[id] = nil } }
    }
    /// The byte bookkeeping, as the scheduling policy sees it.
    var machineState: FillStateMachine { machine }
    package var state: FillState { machine.state }
    /// The resource written, nil while a discovery fill awaits its head.
    package var resource: CachedResource?
    /// The version being written; bytes of another version are never mixed in.
    package var version = 0
    /// First offset asked for; for a suffix request, known after the head.
    package var start: Int { machine.start }
    /// End (exclusive) of the bytes wanted; nil = to the end. Other fills may shorten it.
    package var end: Int? { machine.end }

    /// Another fill covers the bytes from `end` on: this one stops there.
    func shorten(to end: Int) { machine.shorten(to: end) }
    /// The next offset to be written; bytes in `dataStart..<cursor` are on disk.
    package var cursor: Int { machine.cursor }
    package var dataStart: Int { machine.dataStart }
    /// CRC-32 of each block as it is written, recorded when the block is confirmed.
    var checksums = BlockChecksums()
    /// Bytes written but not yet confirmed: readers may take them from here (the confirmed ones
    /// are in the resource's set, which eviction keeps honest).
    var unconfirmedWindow: Range<Int> { machine.unconfirmedWindow }
    let asked: RangeResponseCheck.Asked?
    /// What the origin's head means for the stored resource.
    var validation: ValidationStateMachine
    /// The transfer under way; set by this type alone (here and in its extensions' files).
    var transfer: UpstreamTransfer?
    /// What the fill asks upstream; sent again to another parent when one fails to connect.
    private var upstreamRequest: UpstreamRequest!
    /// Requests sent again because a parent could not be reached, or answered without the object.
    private var parentRetries = 0
    /// The parent answered with an error from its side (see `passesOverParent`): when this
    /// transfer ends, the next parent is asked.
    private var askNextParent = false
    /// Responses waiting for this fill's head (discovery, revalidation, validation before a head).
    private var headWaiters: [HeadWaiter] = []
    /// The response that started the fill; it inherits the transfer when the response is not storable.
    private(set) weak var owner: HeadWaiter?
    /// The upstream head, once received.
    package var head: UpstreamHead?
    /// Why the response is not stored (discovery only).
    var refusal: String?
    /// When the request went out: the origin's answer describes the resource as of then or later.
    package var startedAt = 0.0
    /// The same on the wall clock (epoch seconds), for the response's age (RFC 9111 section 4.2.3).
    var requestedAt = 0
    /// A prefetch discovery: once stored, the resource gets a prefetch ticket for the whole body.
    private(set) var isPrefetch = false
    /// A HEAD's discovery: the first block it asked for is stored even though no response reads
    /// it, so the GET that follows a HEAD does not fetch those bytes again. A download's discovery
    /// too: the download wants what it asked for, and when the origin ignores the range it wants
    /// the whole body, which stopping at a block would make the origin send again from byte 0.
    private(set) var keepsSpan = false
    /// True while the transfer is paused by `ResourceCoordinator.shouldThrottle` or a rate limit.
    var paused = false
    /// Resumes a transfer a download's rate limit paused.
    var rateTimer: LoopTimer?
    /// When this fill last told `Coordinators.players` that a player is fed by it (monotonic).
    var playerStamp = -Double.infinity
    /// True once a pass-through response took the transfer over.
    var handedOver = false

    /// Creates a fill. `asked` nil means a plain GET without Range.
    init(coordinators: Coordinators, id: Int, kind: FillKind, fetch: FetchContext, resource: CachedResource?,
         asked: RangeResponseCheck.Asked?, startedBy: Int?) {
        self.coordinators = coordinators
        self.id = id
        self.fetch = fetch
        self.kind = kind
        self.startedBy = startedBy
        self.resource = resource
        self.asked = asked
        validation = ValidationStateMachine(kind: kind, asked: asked, stored: resource?.meta, host: fetch.url.host,
                                            targeted: coordinators.targetedFields)
        self.version = resource?.version ?? 0
        switch asked {
        case let .span(first, last)?: machine = FillStateMachine(start: first, end: last.map { $0 + 1 })
        case .suffix?, nil: machine = FillStateMachine(start: 0, end: nil)
        }
        var condition = UpstreamClient.UpstreamCondition.none
        if let r = resource {
            if kind == .revalidation {
                condition = .revalidate(etag: r.meta.etag, lastModified: r.meta.lastModified)
            } else if let v = r.meta.ifRangeValidator {
                condition = .ifRange(v)
            }
        }
        let upstream = coordinators.upstream
        var fields = fetch.headers
        if fetch.askOrigin {
            fields.set("Cache-Control", "no-cache")
        } else if let maxAge = fetch.maxAge {
            fields.set("Cache-Control", "max-age=\(maxAge)")
        }
        upstreamRequest = upstream.request(fetch.url, checkAddress: fetch.checkAddress, userAgent: fetch.userAgent,
                                           range: asked, condition: condition, passing: fields, key: fetch.base)
        makeTransfer()
    }

    /// The transfer of `upstreamRequest`, routed now (to the key's parent, if there is a tier).
    private func makeTransfer() {
        let t = coordinators.upstream.transfer(for: upstreamRequest)
        transfer = t
        // Strong captures on purpose: a transfer in flight keeps its fill alive. The cycle breaks
        // when the transfer completes or is cancelled (it drops its callbacks then).
        t.onHead = { head in self.received(head: head) }
        // Early hints go to the responses waiting for this head; they are never stored.
        t.onInterim = { head in for w in self.headWaiters where w.isWaiting { w.interimArrived(head) } }
        t.onData = { bytes in self.received(bytes) }
        t.onComplete = { error in self.completed(error) }
    }

    /// Starts a discovery or revalidation for `purpose` (nil: a revalidation). `waiter`, the
    /// response that started it, hears the head and takes over an answer that is not for storing.
    func begin(for purpose: FillPurpose?, ownedBy waiter: HeadWaiter?) {
        switch purpose {
        case let .playback(keepsSpan)?: self.keepsSpan = keepsSpan
        case .prefetch?: isPrefetch = true
        case .download?: keepsSpan = true
        case nil: break
        }
        if let waiter {
            owner = waiter
            addHeadWaiter(waiter)
        }
        begin()
    }

    func begin() {
        coordinators.liveFills[id] = self
        startedAt = EventLoop.monotonic()
        requestedAt = coordinators.loop.wallClock()
        coordinators.metrics.upstreamFetches += 1
        transfer?.start()
    }

    /// Hands the transfer (with its head already received) to a pass-through response.
    func detachTransfer() -> UpstreamTransfer? {
        let t = transfer
        handedOver = t != nil
        transfer = nil
        t?.onHead = nil
        t?.onInterim = nil
        t?.onData = nil
        t?.onComplete = nil
        machine.fail("handed over")
        return t
    }

    /// True when this fill will write `offset` soon: it covers it and its cursor is at most
    /// `lookahead` bytes before it (waiting longer would hurt a far seek's first byte).
    package func willCover(_ offset: Int, lookahead: Int) -> Bool { machine.willCover(offset, lookahead: lookahead) }

    /// Adds a response to those waiting for this fill's head.
    package func addHeadWaiter(_ w: HeadWaiter) { headWaiters.append(w) }

    /// Stops telling `w` of this fill's head, and stops handing it the transfer (it answered
    /// without waiting, see `CacheExchange.armOfflineWait`).
    package func forget(_ w: HeadWaiter) {
        headWaiters.removeAll { $0 === w }
        if owner === w { owner = nil }
    }

    /// The head waiters, removed.
    /// Responses waiting for this fill's head, for `GET /api/fills`.
    package var headWaiterCount: Int { headWaiters.filter(\.isWaiting).count }

    func takeHeadWaiters() -> [HeadWaiter] {
        let list = headWaiters
        headWaiters.removeAll()
        return list
    }

    // MARK: - upstream events

    func finish(_ r: CachedResource) {
        guard state.isActive else { return }
        recordDuration()
        machine.finish()
        transfer?.cancel()
        transfer = nil
        detach(r)
    }

    /// A parent's 502, 503 or 504 says it could not get the object (its origin is refused or
    /// silent): another parent may hold it, a download's pinned copy above all (issue 32: the
    /// parent tier holds downloads, and edges serve them offline). The next up parent in the key's
    /// order is asked before anyone hears of it (ATS's simple retry); this transfer is stopped.
    func passesOverParent(_ head: UpstreamHead) -> Bool {
        guard [502, 503, 504].contains(head.status), parentRetries < 3, let sent = transfer?.request, let parent = sent.parent,
              let parents = coordinators.upstream.parents else { return false }
        upstreamRequest.passedOver.append(parent)
        guard parents.hasAnother(for: upstreamRequest) else {
            upstreamRequest.passedOver.removeLast()
            return false
        }
        askNextParent = true
        return true
    }

    private func completed(_ error: UpstreamError?) {
        let sent = transfer?.request
        transfer = nil
        guard state.isActive else { return }
        if askNextParent {
            askNextParent = false
            parentRetries += 1
            makeTransfer()
            transfer?.start()
            return
        }
        // A parent that could not be reached is marked down now: before anyone hears of a
        // failure, the same request goes to the key's next parent, or to the origin.
        if let error, head == nil, let parent = sent?.parent, parentRetries < 3, error.isConnectionFailure,
           coordinators.upstream.parents?.isDown(parent) == true {
            parentRetries += 1
            makeTransfer()
            transfer?.start()
            return
        }
        if let error {
            coordinators.metrics.upstreamFailures += 1
            fail(error.description, error: error)
            return
        }
        guard let r = resource else {
            fail("upstream ended without a usable response")
            return
        }
        switch machine.transferEnded(length: r.meta.length, canLearnLength: r.version == version) {
        case let .fail(reason):
            fail(reason)
            return
        case let .complete(learned, confirm):
            if let learned {
                // A body without Content-Length ended cleanly: now its length is known (RFC 9112 section 6.3).
                var m = r.meta
                m.length = learned
                coordinators.cache.refresh(r, meta: m)
                if let confirm { coordinators.cache.confirm(r, confirm, checksums: checksums.take(confirm, length: learned)) }
            }
        }
        recordDuration()
        machine.finish()
        detach(r)
    }

    /// Since when no response has waited on this fill or read its resource (nil while one does).
    private var unwantedSince: Double?

    /// Seconds for which nobody above a prefetch has wanted this fill, as of `now` (0 the first
    /// time it is found unwanted); nil while a response or a ticket above a prefetch wants it.
    func unwantedFor(now: Double) -> Double? {
        if let wanted = wantedPriority, wanted > .prefetch {
            unwantedSince = nil
            return nil
        }
        guard let since = unwantedSince else {
            unwantedSince = now
            return 0
        }
        return now - since
    }

    /// The highest priority of those who want this fill's bytes: a response waiting for its head,
    /// or the tickets open on its resource. Nil when nobody does.
    package var wantedPriority: FetchPriority? {
        let waiting = headWaiters.filter(\.isWaiting).map(\.waiterPriority).max()
        if waiting == .playback { return .playback }
        let tickets = resource.flatMap { coordinators.of($0).machine.highestPriority }
        return [waiting, tickets].compactMap { $0 }.max()
    }
}
