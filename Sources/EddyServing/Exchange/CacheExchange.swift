import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Serves one client request from the cache, fetching missing bytes through shared fill sessions.
///
/// States, in order: *resolving* (looking up, or waiting for a discovery or revalidation head),
/// *streaming* (the head is sent; `pump` moves bytes from disk to the connection as they are
/// confirmed or written by a fill, and waits on an event otherwise), *done*.
final class CacheExchange {
    let services: ExchangeServices
    let request: any ClientRequest
    let url: UpstreamURL
    /// The URL's cache key (`TargetResolver.cacheKey`: the URL, less what a `cache_key` rule
    /// leaves out); the fills it starts still ask for `url` whole.
    let base: String
    /// The key this response reads: `base`, or the variant the request selects (RFC 9111
    /// section 4.1), known after the lookup.
    var key: String
    /// Lookups made again because a response arrived that varies (see `resourceReady`).
    var reresolved = 0
    let checkAddress: Bool
    /// The URL form the client used; rewritten playlist URIs use the same.
    let form: RequestForm
    let startedAt = EventLoop.monotonic()
    /// When the first origin head this response waited for arrived (the access log's upstream time).
    var upstreamHeadAt: Double?
    /// The claim on the resource's bytes, once it is known (see `ResourceCoordinator`).
    var ticket: Ticket?
    var resource: CachedResource? { ticket?.resource }
    /// What the body sends next (see `ResponseBodyStateMachine`).
    var body = ResponseBodyStateMachine(stepBytes: CacheExchange.stepBytes, highWater: CacheExchange.highWater)
    var pieces: [ResponsePiece] { body.pieces }
    /// The response's state and `Cache-Status` (see `ExchangeStateMachine`).
    var machine = ExchangeStateMachine()
    var cacheStatus: CacheStatus { machine.cacheStatus }
    /// The last byte a discovery asked for when `readahead` cut the client's range (`markReadahead`).
    var discoveryBound: Int?
    /// True once the response is complete, abandoned or passed through.
    var done: Bool { machine.isDone }
    var bytesServed: Int { body.bytesServed }
    var bytesAtStart = ByteRangeSet()
    /// Set when a stale copy is served under stale-while-revalidate (see `revalidateInBackground`).
    var revalidateWhenDone = false
    /// The version held whole when this response looked it up, if any: a playlist sent whole
    /// from it cost the origin no body bytes (the access log's origin bytes, issue 29).
    var wholeAtLookup: Int?
    /// The fill whose head this response waits for, if any: its status names the origin's answer
    /// to a revalidation (`fwd-status`, RFC 9211 section 2.4).
    weak var awaitedFill: FillSession?
    /// Armed while this response waits on the origin for a download's copy (`offline_wait`).
    var offlineTimer: LoopTimer?
    /// A pass-through response this one turned into (the origin's answer was not for storing).
    var passedTo: DirectExchange?
    /// Set when the whole body was on disk when the response started.
    var allFromCache = false
    var direct: UpstreamTransfer?
    var directPaused = false
    /// When the uncached tail's transfer is tried again (`streamDirect`), and its pending retry.
    var directResume = ResumeStateMachine(maxAttempts: Coordinators.maxAttempts)
    var directRetry: LoopTimer?
    var chunked = false
    var isHead: Bool { request.method == "HEAD" }

    /// Most bytes handed to the connection per step, and the queue depth at which we wait for a drain.
    static let stepBytes = 256 << 10
    static let highWater = 256 << 10

    /// Whether the segments after this one are prefetched (not for a child's request).
    var prefetches = true
    /// The stored response must be validated with the origin first: a child's request with
    /// `Cache-Control: no-cache` or `max-age=0` (RFC 9111 section 5.2.1.4), as a download's
    /// refresh sends through its parent. Players' own no-cache is not obeyed (a reload would
    /// reach the origin each time).
    var originRequired = false
    /// The request comes from a child (`children:`), which has other parents to ask.
    var askedByChild = false
    /// A child's `max-age` (RFC 9111 section 5.2.1.1): a stored copy older than this is validated
    /// first, as for `originRequired`.
    var childMaxAge: Int?
    /// The oldest copy a parent may answer this response's fills with (see `tierMasterMaxAge`).
    private var upstreamMaxAge: Int?
    /// How old a parent's copy of a multivariant playlist may be for an edge: its revalidation
    /// reaches the origin at most once a second per parent, whatever the number of viewers, and
    /// finds within a second that the origin is gone (and the download's parent answers).
    static let tierMasterMaxAge = 1

    init(services: ExchangeServices, request: any ClientRequest, url: UpstreamURL, key: String, form: RequestForm, checkAddress: Bool) {
        self.services = services
        self.request = request
        self.url = url
        self.form = form
        self.base = key
        self.key = base
        self.checkAddress = checkAddress
    }

    // MARK: - resolving

    var coordinators: Coordinators { services.coordinators }
    /// What fills this response starts send upstream: the client's end-to-end fields and chain.
    var fetchContext: FetchContext {
        FetchContext(url: url, checkAddress: checkAddress, client: self, key: key, base: base, askOrigin: originRequired,
                     maxAge: upstreamMaxAge)
    }
    /// The client's fields for fills (`FetchClient`), built when the first fill asks.
    lazy var forwardedFields = services.upstreamFields(for: request, fill: url)
    var userAgent: String? { request.headers["User-Agent"] }
    var requestHeaders: HTTPHeaders { request.headers }

    /// The coordinator of `r`: the held ticket's (resolved once, when the ticket was opened), looked
    /// up again only for another resource.
    func coordinator(of r: CachedResource) -> ResourceCoordinator {
        if let t = ticket, t.resource === r { return t.coordinator }
        return coordinators.of(r)
    }

    /// Takes a playback ticket on `r`, which holds it until the response ends.
    func hold(_ r: CachedResource) {
        ticket = coordinators.of(r).open(priority: .playback, fetch: fetchContext, consumer: self)
    }

    func begin() {
        if prefetches { services.playlists.prefetch(after: base) }
        let now = services.loop.wallClock()
        let (resolved, stored) = coordinators.resolve(base, headers: request.headers, now: now)
        key = resolved
        if let r = stored {
            hold(r)
            if r.isComplete { wholeAtLookup = r.version }
            _ = services.playlists.kind(of: r, url: url, coordinator: coordinator(of: r)) // known before the freshness check below needs it
        }
        let c = stored.map { coordinator(of: $0) }
        let role = stored.map { offlineRole($0) } ?? .none
        var fresh = !originRequired && (stored.map { freshUnderOfflinePolicy($0, role: role, now: now) } ?? false)
        // In a tier, a multivariant playlist may be a download's, held on a parent that alone
        // knows when the offline policy cuts it (issue 32, item 3): never fresh here, and asked
        // of the parents with `max-age=1`, so that a parent that does not hold the download asks
        // the origin (at most once a second) and, finding it gone, answers an error that sends
        // this edge on to the next parent. A playlist not seen yet may be a master too (once per
        // edge for a media playlist; its kind is known after).
        if role == .none, services.upstream.parents != nil, HLSPlaylist.isPlaylistPath(url.pathAndQuery),
           c?.hlsKind == nil || c?.hlsKind == .multivariant {
            fresh = false
            upstreamMaxAge = CacheExchange.tierMasterMaxAge
        }
        // A child's max-age: an older copy is validated first, and not served stale if that fails.
        if fresh, role == .none, let limit = childMaxAge, let r = stored, now - r.meta.storedAt > limit {
            fresh = false
            originRequired = true
        }
        // With the origin known unreachable, a download's copy is answered from disk at once;
        // an immutable one would be anyway, and says so (`detail=offline`).
        if let r = stored, role != .none, !fresh || role == .immutable, services.health?.isUnreachable(url) == true {
            machine.lookedUp(.revalidate)
            return answerOffline(r)
        }
        // A child asking for what this node does not hold, or holds only in part without the
        // bytes asked (a prefetch the origin's end cut short), from an origin known unreachable,
        // is told so at once (one probe at a time still goes): it then asks its next parent, which
        // may hold a download's copy. Waiting out a black-holed origin on every key would stall it.
        if askedByChild, stored.map({ role == .none && (originRequired || !holdsAsked($0)) }) ?? true,
           services.health?.isUnreachable(url) == true,
           services.health?.claimProbe(url) != true {
            machine.lookedUp(.discover)
            return fail(504, "origin unreachable")
        }
        // A download's master is not served stale while revalidating: online it is the whole one.
        let swr = !fresh && !originRequired && upstreamMaxAge == nil && role != .revalidated && c.map { services.mayServeWhileRevalidating($0, now: now) } ?? false
        let lookup = ValidationStateMachine.lookup(stored: stored != nil, fresh: fresh,
                                                   revalidating: c?.revalidation != nil,
                                                   discovering: coordinators.isDiscovering(key),
                                                   staleWhileRevalidate: swr)
        machine.lookedUp(lookup, variant: resolved != base, again: reresolved > 0)
        switch lookup {
        case .hit:
            resourceReady()
        case .serveStaleWhileRevalidating:
            // The background request goes out when this response ends: a new version found
            // meanwhile would cut off the stale copy mid-body.
            revalidateWhenDone = true
            resourceReady()
        case .joinRevalidation, .revalidate:
            guard let r = stored else { return }
            if role != .none { armOfflineWait() }
            wait(on: coordinators.joinRevalidation(of: r, fetch: fetchContext, asked: firstBlockAsked(r), waiter: self))
        case .joinDiscovery, .discover:
            wait(on: coordinators.join(key, for: .playback(keepsSpan: isHead), fetch: fetchContext, asked: discoveryAsked(), waiter: self))
        }
    }

    /// One background revalidation of the stored resource (RFC 5861 section 3), unless one is in
    /// flight: nobody waits for its head, and its answer refreshes or replaces the stored copy.
    func revalidateInBackground(_ r: CachedResource) {
        guard services.cache.lookup(key, now: services.loop.wallClock()) === r else { return }
        coordinators.joinRevalidation(of: r, fetch: fetchContext, asked: firstBlockAsked(r), waiter: nil)
    }

    /// Waits for the head of the fill it joined (counted as coalesced) or started (it owns it:
    /// it inherits the transfer of an unstorable answer).
    private func wait(on joined: (fill: FillSession, joined: Bool)) {
        if joined.joined { services.metrics.coalesced += 1 }
        awaitedFill = joined.fill
    }

    /// The range for a discovery request: the client's first range, widened to whole blocks.
    func discoveryAsked() -> RangeResponseCheck.Asked? {
        let blocks = CacheStore.blocks
        if isHead { return .span(first: 0, last: blocks.lastByte(ofBlockHolding: 0)) }
        // Only the first range shapes the fetch; If-Range is evaluated once the validators are known.
        guard case let .bytes(specs)? = RangeHeader.parse(request.headers["Range"]), specs.count == 1 else { return nil }
        switch specs[0] {
        case let .from(first, last):
            let lo = blocks.floor(first)
            // `bytes=0-` (ffmpeg's first request, a player's) asks the whole body only when
            // nothing bounds read-ahead: otherwise an ffprobe that reads 1 MiB costs the file.
            if lo == 0 && last == nil && coordinators.readahead == nil { return nil }
            // At most `readahead` past the block asked from (issue 58); later fills follow the reader.
            let bound = coordinators.readahead.map { blocks.ceiling(first + 1) + $0 - 1 }
            let asked = last.map { blocks.lastByte(ofBlockHolding: $0) }
            if let bound, bound < asked ?? Int.max { discoveryBound = bound }
            return .span(first: lo, last: bound.map { Swift.min($0, asked ?? Int.max) } ?? asked)
        case let .suffix(n):
            return .suffix(n)
        }
    }

    /// The block a revalidation asks for: where this response will start reading.
    func firstBlockAsked(_ r: CachedResource) -> RangeResponseCheck.Asked {
        let blocks = CacheStore.blocks
        var first = 0
        if case let .bytes(specs)? = RangeHeader.parse(request.headers["Range"]), let len = r.meta.length,
           let span = specs.compactMap({ $0.resolve(length: len) }).first {
            first = blocks.floor(span.first)
        }
        return .span(first: first, last: blocks.lastByte(ofBlockHolding: first))
    }

    /// Called when the resource's metadata is current (fresh, refreshed, or just discovered).
    func resourceReady() {
        guard !done else { return }
        if resource == nil {
            let (resolved, stored) = coordinators.resolve(base, headers: request.headers, now: services.loop.wallClock())
            // The fill this waited on answered this very request: what it stored is the answer,
            // however its Vary now keys it, and fresh or not (a second fetch for the same
            // request is what the caching suite calls a retry).
            if let stored, resolved == key || reresolved >= 2 || stored === awaitedFill?.resource {
                key = resolved
                hold(stored)
            } else if resolved != key && reresolved < 2 {
                // The head this response waited for varies (RFC 9111 section 4.1) on fields it was
                // not looked up by: look up its own variant, which may mean a fetch of its own.
                reresolved += 1
                key = resolved
                begin()
                return
            }
        }
        guard let r = resource else { headFailed(reason: "resource vanished", timeout: false); return }
        respond(r)
    }

    /// Called when the fill this request waited on could not produce a head.
    func headFailed(reason: String, timeout: Bool) {
        guard !done else { return }
        // A child that asked for validation (no-cache) is told it failed, not served a stale copy:
        // it has other parents to ask, one of which may hold a download's copy.
        let staleServable = !(askedByChild && originRequired)
            && ticket.map { services.mayServeStaleOnError($0.coordinator, now: services.loop.wallClock()) } ?? false
        // A download's copy (pinned) is served whatever its age or directives: offline playback.
        let offline = resource.map { $0.pinned && $0.meta.length != nil } ?? false
        // The fill asked before the head failed (or was cancelled by a version change): with the
        // stored bytes still current, go on as any response does, with the usual resume policy.
        let current = resource.map { services.cache.lookup(key, now: services.loop.wallClock()) === $0 } ?? false
        switch machine.headFailed(reason, timeout: timeout, staleServable: staleServable, offline: offline, storedStillCurrent: current,
                                  askedByChild: askedByChild) {
        case .serveStale, .respondStored:
            // RFC 9111 section 4.2.4: a stale response may be served when the origin cannot be reached.
            if let r = resource { respond(r) }
        case let .abort(why): abort(why)
        case let .fail(status, why): fail(status, why)
        }
    }

    /// The discovery head was not storable: serve this request by passing the response through.
    func passThrough(transfer: UpstreamTransfer?, head: UpstreamHead?, refusal: String?) {
        guard machine.passThrough() else { return }
        releaseResource()
        services.metrics.bypasses += 1
        let direct = DirectExchange(services: services.loopServices, request: request, url: url, form: form, checkAddress: checkAddress,
                                    reason: refusal ?? "not storable")
        passedTo = direct // it reports the request finished; until then this keeps it alive
        direct.begin(adopting: transfer, head: head)
    }
}
