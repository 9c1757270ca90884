import EddyCache
import EddyCore
import EddyLoop

/// Small fresh hits answered without an exchange: on the worker loop that took the request, with
/// no crossing to the home loop, and on the main loop without the exchange's machinery.
///
/// When the home loop answers a plain GET wholly from the memory tier (a complete, fresh, small
/// 200 that does not vary, is not a playlist or a key, for a request with no Range, conditional or
/// Cache-Control), it publishes what it sent under the request-target: the stored fields, the
/// body's shared bytes, and what Age and Cache-Status's ttl are computed from. A later request for
/// the same target with none of those fields is answered from here, exactly as the exchange would,
/// and the hit is reported home afterwards (metrics, access log, LRU, HLS prefetch). The plain
/// small hit was 0.76 to 0.90 of nginx per core through the exchange (bench/RESULTS.md).
///
/// An entry lives at most `lifetime` (1 s) and never past its freshness; the home loop removes it
/// at once when its resource loses bytes or leaves the cache (purge, eviction, a new version,
/// invalidation), and drops them all on a reload, so the fields a 304 refreshed or a changed
/// route are used within a second. Entries hold bytes the memory tier holds (or held up to a
/// second ago), so memory stays within its budget plus what one second of hits published.
final class HitSnapshots: CacheListener, @unchecked Sendable {
    struct Entry {
        let key: String
        let headers: HeaderBlock
        /// Content-Length (and any other body field the home loop sent besides the stored ones).
        let bodyFields: HTTPHeaders
        let bytes: SharedBytes
        let storedAt: Int
        /// Freshness lifetime: ttl = lifetime - (now - storedAt), as `ResourceCoordinator.ttl`.
        let lifetime: Int
        /// Monotonic time after which the entry is not used.
        let expires: Double
    }

    private struct Table {
        var byTarget: [String: Entry] = [:]
        var targetsByKey: [String: Set<String>] = [:]
    }

    /// How long an entry may be used without the home loop seeing a request for it.
    static let lifetime = 1.0
    /// Request fields that send a request home: they change the answer or ask the origin.
    static let homeFields = ["Range", "If-Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since",
                             "Cache-Control", "Pragma", "Authorization"]
    private let table = Locked(Table())

    /// True when a request with these fields could be answered from an entry.
    static func eligible(method: String, headers: HTTPHeaders) -> Bool {
        method == "GET" && !homeFields.contains { headers[$0] != nil }
    }

    /// Home loop: publishes what a memory-tier hit on `target` sent.
    func publish(target: String, key: String, headers: HeaderBlock, bodyFields: HTTPHeaders, bytes: SharedBytes,
                 storedAt: Int, lifetime: Int) {
        let e = Entry(key: key, headers: headers, bodyFields: bodyFields, bytes: bytes, storedAt: storedAt, lifetime: lifetime,
                      expires: EventLoop.monotonic() + HitSnapshots.lifetime)
        table.withLock { t in
            t.byTarget[target] = e
            t.targetsByKey[key, default: []].insert(target)
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
        var extra = HTTPHeaders(capacity: 4)
        extra.add("Age", String(max(0, now - e.storedAt)))
        for (n, v) in e.bodyFields { extra.add(n, v) }
        var status = CacheStatus()
        status.ttl = ttl
        extra.add("Cache-Status", status.description)
        request.sendShared(status: 200, headers: e.headers, extra: extra, bytes: e.bytes, offset: 0, length: e.bytes.count)
        return ExchangeOutcome(cacheStatus: status, fromCache: e.bytes.count, fromOrigin: 0, startedAt: startedAt, cacheKey: e.key)
    }

    /// Home loop: forgets the entries of `key`.
    func revoke(key: String) {
        table.withLock { t in
            guard let targets = t.targetsByKey.removeValue(forKey: key) else { return }
            for target in targets { t.byTarget[target] = nil }
        }
    }

    /// Home loop: forgets everything (a reload may have changed routes or freshness).
    func removeAll() { table.withLock { $0 = Table() } }

    /// Home loop, from a timer: drops expired entries, so their bytes go.
    func sweep() {
        let now = EventLoop.monotonic()
        table.withLock { t in
            for (target, e) in t.byTarget where e.expires <= now {
                t.byTarget[target] = nil
                t.targetsByKey[e.key]?.remove(target)
                if t.targetsByKey[e.key]?.isEmpty == true { t.targetsByKey[e.key] = nil }
            }
        }
    }

    // MARK: - CacheListener (home loop)

    func bytesDropped(_ resource: CachedResource, count: Int) { revoke(key: resource.key) }

    func resourceRemoved(_ resource: CachedResource, bytes: Int) { revoke(key: resource.key) }
}
