/// Freshness of a stored response (RFC 9111 section 4.2), as pure arithmetic on header values.
public struct Freshness: Equatable, Sendable {
    /// Freshness lifetime in seconds.
    public let lifetime: Int
    /// True when a stale copy must never be served without revalidation (no-cache, must-revalidate).
    public let requiresRevalidation: Bool

    public init(lifetime: Int, requiresRevalidation: Bool) {
        self.lifetime = lifetime
        self.requiresRevalidation = requiresRevalidation
    }

    /// Computes the lifetime from response headers: s-maxage, then max-age, then Expires - Date
    /// (RFC 9111 section 4.2.1); without any, `defaultLifetime` (the configurable heuristic of
    /// section 4.2.2). no-cache makes the lifetime 0 (section 5.2.2.4). s-maxage incorporates
    /// proxy-revalidate for a shared cache (section 5.2.2.10), so a stale copy needs revalidation.
    public static func compute(cacheControl cc: CacheControl, expires: String?, date: String?,
                               defaultLifetime: Int) -> Freshness {
        let revalidate = cc.noCache || cc.mustRevalidate || cc.proxyRevalidate
        if cc.noCache { return Freshness(lifetime: 0, requiresRevalidation: true) }
        if let s = cc.sMaxAge { return Freshness(lifetime: s, requiresRevalidation: true) }
        if let m = cc.maxAge { return Freshness(lifetime: m, requiresRevalidation: revalidate) }
        if let expires {
            // An invalid Expires (e.g. "0") means already expired (RFC 9111 section 5.3).
            guard let e = HTTPDate.parse(expires) else { return Freshness(lifetime: 0, requiresRevalidation: revalidate) }
            let d = date.flatMap(HTTPDate.parse) ?? e
            return Freshness(lifetime: Swift.max(0, e - d), requiresRevalidation: revalidate)
        }
        return Freshness(lifetime: defaultLifetime, requiresRevalidation: revalidate)
    }

    /// True while `age` seconds old is within the lifetime.
    public func isFresh(age: Int) -> Bool { age < lifetime }

    /// The live-playlist rule: a live media playlist is stale once half its target duration has
    /// passed since eddy last heard from the origin about it (RFC 8216 section 6.2.2 has clients
    /// reload about that often), and whenever eddy does not know when that was. `targetDuration`
    /// is nil for anything but a live playlist, which the rule leaves alone. Times are seconds on
    /// one monotonic clock.
    public static func livePlaylistAllows(targetDuration: Double?, lastHeardAt: Double?, now: Double) -> Bool {
        guard let targetDuration else { return true }
        guard let lastHeardAt else { return false }
        return now - lastHeardAt < targetDuration / 2
    }
}
