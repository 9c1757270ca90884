import EddyCache
import EddyCore
import EddyLoop
import EddyResources
import Glibc

/// Plain fresh hits answered without an exchange: on the worker loop that took the request, with
/// no crossing to the home loop, and on the main loop without the exchange's machinery.
///
/// When the home loop answers a plain GET wholly from a stored 200 (fresh, not varying, not a
/// playlist or a key, for a request with no conditional or Cache-Control, and a Range of one span
/// at most), it publishes what the answer depends on under the request-target: the stored fields,
/// the body (the memory tier's shared bytes, or a descriptor of its own for the data file), which
/// of its bytes are stored, and what Age and Cache-Status's ttl are computed from. A resource
/// still partly stored (a player's seek into a large file) is published too, with the ranges
/// stored then: a span within them is answered here, anything else goes home. Those ranges only
/// grow until the version loses bytes, and then its entries go (`bytesDropped`). A later request for the same
/// target is answered from here exactly as the exchange would: the same `ResponsePlan` turns its
/// Range into a 200 or a 206 (multipart and unsatisfiable ranges go home). The hit is reported
/// home afterwards (metrics, access log, LRU, HLS prefetch). The plain small hit was 0.76 to 0.90
/// of nginx per core through the exchange, and larger hits crossed to the home loop for every
/// piece (bench/RESULTS.md).
///
/// An entry lives at most `lifetime` (1 s) and never past its freshness; the home loop removes it
/// at once when its resource loses bytes or leaves the cache (purge, eviction, a new version,
/// invalidation), and drops them all on a reload, so the fields a 304 refreshed or a changed
/// route are used within a second. Entries hold bytes the memory tier holds (or held up to a
/// second ago), so memory stays within its budget plus what one second of hits published; file
/// entries hold a descriptor each, and there are at most `maxFileEntries` of them.
package final class HitSnapshots: CacheListener, @unchecked Sendable {
    /// Where an entry's body is.
    enum Body {
        case bytes(SharedBytes)
        /// The data file of a complete version, through a descriptor of the entry's own.
        case file(SharedDescriptor)
    }

    struct Entry {
        let key: String
        let headers: HeaderBlock
        let body: Body
        /// The representation's length: the body is bytes 0..<length.
        let length: Int
        /// The bytes of the body stored when the entry was published; nil when all of them are.
        let stored: ByteRangeSet?
        let storedAt: Int
        /// Freshness lifetime: ttl = lifetime - (now - storedAt), as `ResourceCoordinator.ttl`.
        let lifetime: Int
        /// Monotonic time after which the entry is not used.
        let expires: Double
        /// False for a rewritten playlist: its exchange ignores Range and sends the whole body.
        let servesRanges: Bool
        /// False for a live playlist, whose freshness is the live rule's: no ttl in Cache-Status.
        let reportsTTL: Bool

        var isFile: Bool {
            if case .file = body { return true }
            return false
        }
    }

    private struct Table {
        var byTarget: [String: Entry] = [:]
        var targetsByKey: [String: Set<String>] = [:]
        var fileEntries = 0

        mutating func remove(_ target: String) {
            guard let e = byTarget.removeValue(forKey: target) else { return }
            if e.isFile { fileEntries -= 1 }
            targetsByKey[e.key]?.remove(target)
            if targetsByKey[e.key]?.isEmpty == true { targetsByKey[e.key] = nil }
        }
    }

    /// How long an entry may be used without the home loop seeing a request for it.
    static let lifetime = 1.0
    /// Request fields that send a request home: they change the answer or ask the origin.
    /// (Range is answered here when it names one span; see `plan`.)
    static let homeFields = ["If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since",
                             "Cache-Control", "Pragma", "Authorization"]
    /// File entries hold a descriptor each: a sixteenth of the process's limit, at most 256, so
    /// that a second of many distinct large hits cannot take the descriptors clients need.
    let maxFileEntries: Int
    private let table = Locked(Table())
    /// Responses still reading a data file through an entry, by cache key (any loop).
    private let sending = Locked([String: Int]())

    package init() {
        var limit = rlimit()
        let soft = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(limit.rlim_cur) : 1024
        maxFileEntries = max(4, min(256, soft / 16))
    }

    /// True when a request with these fields could be answered from an entry.
    static func eligible(method: String, headers: HTTPHeaders) -> Bool {
        method == "GET" && !homeFields.contains { headers[$0] != nil }
    }

    /// What an entry of `length` bytes, of which `stored` are on disk (nil: all), answers to a
    /// request with `range` (the Range field): a 200 or a single-span 206, as
    /// `CacheExchange.respond` plans it; nil for what goes home (a span not wholly stored, which
    /// the exchange fetches).
    static func plan(range: String?, length: Int, stored: ByteRangeSet? = nil) -> ResponsePlan? {
        let p = ResponsePlan.make(RangePlan.make(RangeHeader.parse(range), length: length), length: length,
                                  contentType: nil, boundary: "")
        guard p.status != 416, !p.isMultipart else { return nil }
        if let stored, case let .resource(span)? = p.pieces.first, !stored.contains(span) { return nil }
        return p
    }

    /// Home loop: publishes what a hit on `target` sent (the whole representation's `body`), to be
    /// used until `until` (monotonic) at the latest. `servesRanges` and `reportsTTL`: see `Entry`.
    /// `stored`: the bytes of the body on disk now, when not all of them are (a file body only).
    func publish(target: String, key: String, headers: HeaderBlock, body: Body, length: Int, stored: ByteRangeSet? = nil,
                 storedAt: Int, lifetime: Int, servesRanges: Bool = true, reportsTTL: Bool = true, until: Double = .infinity) {
        let e = Entry(key: key, headers: headers, body: body, length: length, stored: stored, storedAt: storedAt, lifetime: lifetime,
                      expires: min(until, EventLoop.monotonic() + HitSnapshots.lifetime), servesRanges: servesRanges,
                      reportsTTL: reportsTTL)
        let limit = maxFileEntries
        table.withLock { t in
            t.remove(target)
            if e.isFile {
                guard t.fileEntries < limit else { return }
                t.fileEntries += 1
            }
            t.byTarget[target] = e
            t.targetsByKey[key, default: []].insert(target)
        }
    }

    /// True when a file entry for `target`, with `stored` the bytes on disk now (nil: all), may be
    /// published now (none is there, or the one there is stale, and there is room): the home loop
    /// asks before it duplicates a descriptor.
    func wantsFile(for target: String, stored: ByteRangeSet?) -> Bool {
        let limit = maxFileEntries, now = EventLoop.monotonic()
        return table.withLock { t in
            // An expired entry the sweep has not removed yet is replaced (it would otherwise send
            // every request home until the sweep: a third of them, measured). So is one of a
            // resource that has stored more since: a span fetched after it was published (a
            // player's next seek) would otherwise go home until it expired.
            if let e = t.byTarget[target] { return e.expires <= now || (e.stored != nil && e.stored != stored) }
            return t.fileEntries < limit
        }
    }

    /// Any loop: the entry for `target` if it may answer now (`now`: wall-clock seconds).
    func entry(for target: String, now: Int) -> (entry: Entry, ttl: Int)? {
        guard let e = table.withLock({ $0.byTarget[target] }), EventLoop.monotonic() < e.expires else { return nil }
        let ttl = e.lifetime - (now - e.storedAt)
        return ttl > 0 ? (e, ttl) : nil
    }

    /// Any loop: answers `request` from its entry, as an exchange would have; nil (nothing sent)
    /// when it needs one. `now`: the answering loop's wall clock.
    func answer(_ request: ServerRequest, now: Int) -> ExchangeOutcome? {
        let startedAt = EventLoop.monotonic()
        guard HitSnapshots.eligible(method: request.method, headers: request.headers),
              let (e, ttl) = entry(for: request.uri, now: now) else { return nil }
        let range = e.servesRanges ? request.headers["Range"] : nil
        var extra = HTTPHeaders(capacity: 4)
        extra.add("Age", String(max(0, now - e.storedAt)))
        var span = 0..<e.length, status = 200
        if range == nil && e.stored == nil {
            extra.add("Content-Length", String(e.length))
        } else if let range, let one = RangeHeader.singleSpan(range, length: e.length), e.stored?.contains(one.range) ?? true {
            // One plain range, the players' kind: the fields `plan` would give, without its arrays.
            ResponsePlan.addSingleRangeFields(one, length: e.length, to: &extra)
            (span, status) = (one.range, 206)
        } else { // `plan` also sends home the whole body of a partly stored resource
            guard let plan = HitSnapshots.plan(range: range, length: e.length, stored: e.stored),
                  case let .resource(r)? = plan.pieces.first else { return nil }
            for (n, v) in plan.bodyFields { extra.add(n, v) }
            (span, status) = (r, plan.status)
        }
        var cacheStatus = CacheStatus()
        if e.reportsTTL { cacheStatus.ttl = ttl }
        extra.add("Cache-Status", cacheStatus.description)
        var outcome = ExchangeOutcome(cacheStatus: cacheStatus, fromCache: span.count, fromOrigin: 0, startedAt: startedAt, cacheKey: e.key)
        switch e.body {
        case let .bytes(b):
            outcome.fromMemory = true
            request.sendShared(status: status, headers: e.headers, extra: extra, bytes: b, offset: span.lowerBound, length: span.count)
        case let .file(d):
            let file = FileSpan(descriptor: d.fd, offset: span.lowerBound, length: span.count)
            guard span.count > ServerRequest.copyThreshold else {
                // Sent, or read into the reply, before `sendFile` returns: nothing reads the file
                // for this response afterwards, so there is no send to count.
                guard request.sendFile(status: status, headers: e.headers, extra: extra, span: file) else { return nil }
                break
            }
            // The segment takes a descriptor of its own, so `d` may close once this returns. Until
            // the file is no longer read for this response, eviction must not punch its blocks.
            let key = e.key
            sending.withLock { $0[key, default: 0] += 1 }
            let sent = { [sending] in
                sending.withLock { s in
                    s[key, default: 1] -= 1
                    if s[key] == 0 { s[key] = nil }
                }
            }
            guard request.sendFileWhole(status: status, headers: e.headers, extra: extra, span: file, whenSent: sent) else {
                sent()
                return nil
            }
        }
        return outcome
    }

    /// True while a response answered from an entry still reads `key`'s data file (a slow
    /// client of a large body may take minutes, long after the entry went): the home loop then
    /// keeps eviction from punching holes under it (`CacheStore.protectedRanges`).
    func isSending(_ key: String) -> Bool { sending.withLock { $0[key] != nil } }

    /// Any loop: forgets the entries of `key`.
    func revoke(key: String) {
        table.withLock { t in
            for target in t.targetsByKey[key] ?? [] { t.remove(target) }
        }
    }

    /// Home loop: forgets everything (a reload may have changed routes or freshness).
    package func removeAll() { table.withLock { $0 = Table() } }

    /// Home loop, from a timer: drops expired entries, so their bytes go.
    package func sweep() {
        let now = EventLoop.monotonic()
        table.withLock { t in
            for (target, e) in t.byTarget where e.expires <= now { t.remove(target) }
        }
    }

    // MARK: - CacheListener (home loop)

    package func bytesDropped(_ resource: CachedResource, count: Int) { revoke(key: resource.key) }

    package func resourceRemoved(_ resource: CachedResource, bytes: Int) { revoke(key: resource.key) }
}
