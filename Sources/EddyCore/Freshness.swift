/// Freshness of a stored response (RFC 9111 section 4.2), as pure arithmetic on header values.
public struct Freshness: Equatable, Sendable {
    /// Freshness lifetime in seconds.
    public let lifetime: Int
    /// True when a stale copy must never be served without revalidation (no-cache,
    /// must-revalidate, proxy-revalidate, s-maxage).
    public let requiresRevalidation: Bool
    /// Seconds past the lifetime during which the stale copy is served while one background
    /// request revalidates it (RFC 5861 section 3).
    public let staleWhileRevalidate: Int
    /// Seconds past the lifetime during which the stale copy may replace an error (RFC 5861
    /// section 4); nil when the response does not say.
    public let staleIfError: Int?
    /// True when the lifetime is a heuristic (RFC 9111 section 4.2.2).
    public let isHeuristic: Bool

    public init(lifetime: Int, requiresRevalidation: Bool, staleWhileRevalidate: Int = 0, staleIfError: Int? = nil,
                isHeuristic: Bool = false) {
        self.lifetime = lifetime
        self.requiresRevalidation = requiresRevalidation
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.isHeuristic = isHeuristic
    }

    /// Status codes heuristically cacheable by default (RFC 9110 section 15.1).
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Computes freshness from a response's headers: the targeted field (RFC 9213) or
    /// Cache-Control; then s-maxage, max-age, Expires - Date (section 4.2.1; a missing Date is the
    /// response time, an invalid or repeated Expires is already expired, section 5.3); without any,
    /// for a heuristically cacheable status, 10% of Date - Last-Modified capped at
    /// `heuristicMax` (section 4.2.2), 404/410 `negativeLifetime`, else `defaultLifetime`.
    /// no-cache makes the lifetime 0 (section 5.2.2.4); s-maxage incorporates proxy-revalidate for
    /// a shared cache (section 5.2.2.10).
    public static func compute(headers h: HTTPHeaders, status: Int = 200, responseTime: Int,
                               policy: FreshnessPolicy) -> Freshness {
        let cc = CacheControl.effective(h, targeted: policy.targetedFields)
        let revalidate = cc.noCache || cc.mustRevalidate || cc.proxyRevalidate || cc.sMaxAge != nil
        func make(_ lifetime: Int, heuristic: Bool = false) -> Freshness {
            Freshness(lifetime: Swift.max(0, lifetime), requiresRevalidation: revalidate,
                      staleWhileRevalidate: cc.staleWhileRevalidate ?? 0, staleIfError: cc.staleIfError, isHeuristic: heuristic)
        }
        if cc.noCache { return make(0) }
        if let s = cc.sMaxAge { return make(s) }
        if let m = cc.maxAge { return make(m) }
        let date = h["Date"].flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        let expires = h.values("Expires")
        if !expires.isEmpty {
            guard expires.count == 1, let e = HTTPDate.parse(expires[0], now: responseTime) else { return make(0) }
            return make(e - date)
        }
        if heuristicallyCacheable.contains(status), let lm = h["Last-Modified"].flatMap({ HTTPDate.parse($0, now: responseTime) }) {
            return make(Swift.min(policy.heuristicMax, Swift.max(0, date - lm) / 10), heuristic: true)
        }
        if status == 404 || status == 410 { return make(policy.negativeLifetime, heuristic: true) }
        return make(policy.defaultLifetime, heuristic: true)
    }

    /// The response's age when received (RFC 9111 section 4.2.3): the larger of the apparent age
    /// (`responseTime` - Date) and the origin's `Age` plus the time the request took.
    public static func initialAge(headers h: HTTPHeaders, requestTime: Int, responseTime: Int) -> Int {
        let date = h["Date"].flatMap { HTTPDate.parse($0, now: responseTime) }
        let apparent = date.map { Swift.max(0, responseTime - $0) } ?? 0
        // Age is a non-negative integer (section 5.1); an invalid one is ignored, and one past
        // 2^31 is taken as 2^31 (section 1.2.2), so an origin's huge Age can not overflow the sum.
        // RFC 9111 section 5.1: of a list-based Age (`7200, 0`) the first member counts; a value
        // that is then not delta-seconds (`7200abc`) is ignored.
        let firstAge = h["Age"].map { $0.prefix { $0 != "," }.trimmingOWS() }
        let ageValue = Swift.min(firstAge.flatMap { RangeHeader.parseDigits($0) } ?? 0, 1 << 31)
        let corrected = ageValue + Swift.max(0, responseTime - requestTime)
        return Swift.min(Swift.max(apparent, corrected), Int(Int32.max))
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
