import EddyCache
import EddyCore

/// Discovery and revalidation as a value with no I/O: what a request for a URL does first (serve
/// the stored copy, join or start a revalidation, join or start a discovery), and what the
/// origin's head means for the stored resource (store it, refresh it, keep it, replace it with a
/// new version, drop it, or pass the response through). `FillSession` and `CacheExchange` perform
/// the actions.
package struct ValidationStateMachine {
    /// What a response does first.
    package enum Lookup: Equatable {
        /// Respond from the stored resource.
        case hit
        /// Wait for the revalidation in flight.
        case joinRevalidation
        /// Ask the origin about the stored (stale) resource.
        case revalidate
        /// Serve the stale stored copy now; one request revalidates it in the background
        /// (stale-while-revalidate, RFC 5861 section 3).
        case serveStaleWhileRevalidating
        /// Wait for the discovery of this URL in flight.
        case joinDiscovery
        /// Ask the origin for an unknown URL.
        case discover
    }

    /// The first step for a request: a revalidation in flight answers for everyone (RFC 9111
    /// section 4 lets a cache collapse requests), a fresh copy is served, a stale one is
    /// revalidated; an unknown URL is discovered once however many ask.
    /// `staleWhileRevalidate` when a stale copy is within its stale-while-revalidate window.
    package static func lookup(stored: Bool, fresh: Bool, revalidating: Bool, discovering: Bool,
                       staleWhileRevalidate: Bool = false) -> Lookup {
        if stored {
            if revalidating { return staleWhileRevalidate && !fresh ? .serveStaleWhileRevalidating : .joinRevalidation }
            if fresh { return .hit }
            return staleWhileRevalidate ? .serveStaleWhileRevalidating : .revalidate
        }
        return discovering ? .joinDiscovery : .discover
    }

    /// Where the body of a 200 or 206 goes.
    struct Body: Equatable {
        /// The first offset the body carries.
        let start: Int
        /// The complete length, if the head told it.
        let length: Int?
        /// The origin answered 200 to a Range request: the whole body, from byte 0.
        let isFull: Bool
        /// A suffix range turned out to start at `start` and run to the end.
        let openEnded: Bool
        /// Where a 206's extent ends (exclusive): it may stop short of what was asked
        /// (`RangeResponseCheck`); nil for a whole body.
        var end: Int? = nil
    }

    /// What the head means.
    enum Action: Equatable {
        /// Discovery: not for storing (RFC 9111 section 3); the response passes through.
        case passThrough(refusal: String)
        /// Discovery: a new resource described by `meta`.
        case store(meta: ResourceMeta, body: Body)
        /// Revalidation answered 304: the stored response is fresh again with `meta` (section 4.3.4).
        case refresh(meta: ResourceMeta)
        /// The stored representation stands; `refreshed` is the new metadata when a revalidation
        /// got a full answer of the same representation.
        case sameVersion(refreshed: ResourceMeta?, body: Body)
        /// The origin's representation changed: never combine two versions (section 3.4).
        case newVersion(meta: ResourceMeta, body: Body)
        /// The origin no longer serves this resource (404, 410, no-store, private): forget it.
        case drop(reason: String)
        /// The head can not be used.
        case fail(reason: String)
    }

    let kind: FillKind
    /// The range asked for; nil for a plain GET.
    let asked: RangeResponseCheck.Asked?
    /// The stored version's metadata (revalidation and range fills), as of the head's arrival.
    private(set) var stored: ResourceMeta?
    /// The stored resource is a download's (pinned), as of the head's arrival: the user's to
    /// delete, so no answer of the origin's drops it or replaces it with an error. The stored copy
    /// is then served as it would be with the origin down (offline).
    private(set) var pinned = false
    /// The host the request went to, for telling a redirect to another host.
    let host: String?
    /// Set when the origin answered a download's resource with something of the wrong kind: HTML
    /// where something else was stored, or a redirect to another host (a captive portal's login
    /// page). Such an answer never replaces the stored copy, and says the origin is not reachable.
    private(set) var wrongKind: String?
    private(set) var decided = false

    init(kind: FillKind, asked: RangeResponseCheck.Asked?, stored: ResourceMeta?, host: String? = nil,
         targeted: [String] = FreshnessPolicy().targetedFields) {
        self.kind = kind
        self.asked = asked
        self.stored = stored
        self.host = host
        self.targeted = targeted
    }

    /// The stored resource as of the head's arrival: its metadata, and whether a download pins it.
    mutating func resourceAtHead(_ meta: ResourceMeta, pinned: Bool) {
        stored = meta
        self.pinned = pinned
    }

    /// Targeted cache-control fields obeyed instead of Cache-Control (RFC 9213).
    let targeted: [String]

    /// The origin's head: `status`, `headers`, and the body's Content-Length if any. `now` is the
    /// wall clock (epoch seconds) when it arrived, `requestedAt` when the request went out.
    /// `storedAt` in the metadata is when the response's age was 0: `now` less its initial age
    /// (RFC 9111 section 4.2.3), so that `now - storedAt` is its current age from then on.
    mutating func headArrived(status: Int, headers: HTTPHeaders, contentLength: Int?, now: Int, requestedAt: Int? = nil) -> Action {
        guard !decided else { return .fail(reason: "a second head") }
        decided = true
        let now = now - Freshness.initialAge(headers: headers, requestTime: requestedAt ?? now, responseTime: now)
        if kind == .discovery {
            if let why = StoragePolicy.refusal(status: status, headers: headers, targeted: targeted) { return .passThrough(refusal: why) }
            return body(status: status, headers: headers, contentLength: contentLength).map {
                .store(meta: meta(status, headers, length: $0.length, now: now), body: $0)
            } ?? failure
        }
        guard let stored else { return .fail(reason: "no stored resource") }
        if pinned, let why = ValidationStateMachine.wrongKind(status: status, headers: headers, stored: stored, host: host) {
            wrongKind = why
            return .fail(reason: why)
        }
        if status == 304 && kind == .revalidation {
            var m = stored
            var replay = m.headers
            for (n, v) in StoragePolicy.replayed(headers) { replay.set(n, v) }
            m.headers = replay
            if let e = headers["ETag"] { m.etag = e }
            if let lm = headers["Last-Modified"] { m.lastModified = lm }
            m.storedAt = now
            return .refresh(meta: m)
        }
        if let why = StoragePolicy.refusal(status: status, headers: headers, targeted: targeted) {
            // The stored copy can not be refreshed; gone or forbidden means forget it.
            let reason = "origin answered \(status) (\(why))"
            if !pinned && (status == 404 || status == 410 || why == "no-store" || why == "private") { return .drop(reason: reason) }
            return .fail(reason: reason)
        }
        // An error answer, even a cacheable one (a negatively cached 404), does not replace a download's copy.
        if pinned && status >= 400 { return .fail(reason: "origin answered \(status)") }
        guard let b = body(status: status, headers: headers, contentLength: contentLength) else { return failure }
        let new = meta(status, headers, length: b.length, now: now)
        if !stored.sameRepresentation(as: new) || (status == 206 && stored.length != nil && stored.length != b.length) {
            return .newVersion(meta: new, body: b)
        }
        if kind == .revalidation {
            var m = stored
            m.storedAt = now
            return .sameVersion(refreshed: m, body: b)
        }
        return .sameVersion(refreshed: nil, body: b)
    }

    /// Why an answer for a download's stored copy can not be the origin's (see `wrongKind`).
    static func wrongKind(status: Int, headers: HTTPHeaders, stored: ResourceMeta, host: String?) -> String? {
        if (300...399).contains(status), status != 304, let location = headers["Location"] {
            // A relative Location stays on the host (RFC 9110 section 10.2.2).
            guard let to = UpstreamURL.parse(Substring(location)), let host, to.host != host else { return nil }
            return "origin redirected to another host (\(to.host)): a captive portal?"
        }
        let html = { (type: String?) in type.map { $0.lowercased().hasPrefix("text/html") || $0.lowercased().hasPrefix("application/xhtml") } ?? false }
        if (status == 200 || status == 206) && html(headers["Content-Type"]) && !html(stored.contentType) {
            return "origin answered HTML where \(stored.contentType ?? "other content") was stored: a captive portal?"
        }
        return nil
    }

    /// Why the last `body` call failed.
    private var failure: Action { .fail(reason: lastFailure ?? "unusable head") }
    private var lastFailure: String?

    /// The span a 200 or 206 carries, checked against what was asked (RFC 9110 section 14.4);
    /// nil when it can not be used.
    private mutating func body(status: Int, headers: HTTPHeaders, contentLength: Int?) -> Body? {
        // Anything but a 206 is the whole response from byte 0 (a 404 ignores Range).
        if status != 206 { return Body(start: 0, length: contentLength, isFull: true, openEnded: false) }
        guard let asked else {
            lastFailure = "206 to a request without Range"
            return nil
        }
        // A revalidation sends no If-Range: its 206 may be of a new version of another length;
        // the validators decide.
        switch RangeResponseCheck.verify(asked: asked, contentRange: headers["Content-Range"], contentLength: contentLength,
                                         knownLength: kind == .revalidation ? nil : stored?.length) {
        case let .success(v):
            var suffix = false
            if case .suffix = asked { suffix = v.span.last == v.completeLength - 1 }
            return Body(start: v.span.first, length: v.completeLength, isFull: false, openEnded: suffix, end: v.span.last + 1)
        case let .failure(reason):
            lastFailure = "bad 206: \(reason)"
            return nil
        }
    }

    /// A 206 stores part of the 200 representation; any other status is stored as it is. A 200's
    /// own Content-Range (meaningless there, RFC 9110 section 14.4, but the origin's) is kept and
    /// replayed; such a response is then always sent whole (`CacheExchange.respond`).
    private func meta(_ status: Int, _ headers: HTTPHeaders, length: Int?, now: Int) -> ResourceMeta {
        var replayed = StoragePolicy.replayed(headers)
        if status == 200, let cr = headers["Content-Range"] { replayed.add("Content-Range", cr) }
        return ResourceMeta(length: length, etag: headers["ETag"], lastModified: headers["Last-Modified"],
                            contentType: headers["Content-Type"], headers: replayed, storedAt: now,
                            status: status == 206 ? 200 : status)
    }
}
