/// The parent tier as a value (issue 32): which parent proxy an upstream fetch goes to, chosen by
/// rendezvous hashing of the cache key (highest random weight, Thaler and Ravishankar 1998), so
/// each object has one home in the tier and removing a parent moves only its own keys; and each
/// parent's health, marked down on a failure and probed again after a capped backoff (ATS's
/// parent selection with `go_direct`, Varnish's shard director). No I/O, no clock: the caller
/// passes the time.
public struct ParentPool: Equatable, Sendable {
    /// One parent and what is known of it.
    public struct Parent: Equatable, Sendable {
        public let url: UpstreamURL
        /// Consecutive failures; 0 when up.
        public fileprivate(set) var failures = 0
        /// Not asked before this time (monotonic seconds) after a failure; then one request is
        /// let through as a probe, and its outcome decides.
        public fileprivate(set) var downUntil = -Double.infinity
        fileprivate let seed: UInt64
    }

    /// Where a fetch goes.
    public enum Route: Equatable, Sendable {
        case parent(Int)
        /// Every parent is down and `goDirect` allows the origin itself.
        case direct
        /// Every parent is down and the origin may not be asked (`parent_go_direct: false`).
        case unavailable
    }

    public private(set) var parents: [Parent]
    /// With every parent down, go to the origin (true) or fail (false).
    public let goDirect: Bool
    /// The longest wait between probes of a down parent.
    public static let maxBackoff = 30.0

    public init(_ urls: [UpstreamURL], goDirect: Bool = true) {
        parents = urls.map { Parent(url: $0, seed: ParentPool.hash($0.description, 0xcbf2_9ce4_8422_2325)) }
        self.goDirect = goDirect
    }

    /// The parents in `key`'s order of preference: highest weight first.
    public func order(of key: String) -> [Int] {
        let weights = parents.map { ParentPool.mix(ParentPool.hash(key, $0.seed)) }
        return parents.indices.sorted { (weights[$0], $1) > (weights[$1], $0) }
    }

    /// Where a fetch of `key` goes at `now`: the first parent in its order that is up, or due for
    /// a probe, and not among `skipping` (parents that answered this fetch without the object). A
    /// probe is one request: the parent stays skipped for `probe` seconds (the connect timeout)
    /// while it is out, so that a black-holed parent holds up one request, not all.
    public mutating func route(_ key: String, now: Double, probe: Double = 10, skipping: Set<Int> = []) -> Route {
        guard let i = next(for: key, now: now, skipping: skipping) else { return goDirect ? .direct : .unavailable }
        if parents[i].failures > 0 { parents[i].downUntil = now + probe }
        return .parent(i)
    }

    /// The parent a fetch of `key` would go to next, `skipping` those that answered it without
    /// the object; nil when none is left up (ATS's simple retry: the last answer stands).
    public func next(for key: String, now: Double, skipping: Set<Int>) -> Int? {
        order(of: key).first { parents[$0].downUntil <= now && !skipping.contains($0) }
    }

    /// Parent `i` could not be reached, or failed for its own reasons: down, and asked again
    /// after 1, 2, 4... seconds, at most `maxBackoff`.
    public mutating func failed(_ i: Int, now: Double) {
        guard parents.indices.contains(i) else { return }
        parents[i].failures += 1
        let wait = Swift.min(ParentPool.maxBackoff, Double(1 << Swift.min(parents[i].failures - 1, 10)))
        parents[i].downUntil = now + wait
    }

    /// Parent `i` answered: up.
    public mutating func answered(_ i: Int) {
        guard parents.indices.contains(i), parents[i].failures > 0 || parents[i].downUntil > -Double.infinity else { return }
        parents[i].failures = 0
        parents[i].downUntil = -Double.infinity
    }

    /// Whether parent `i` is down at `now`.
    public func isDown(_ i: Int, now: Double) -> Bool { parents[i].downUntil > now }

    /// FNV-1a over `text` from `seed`.
    static func hash(_ text: String, _ seed: UInt64) -> UInt64 {
        var h = seed
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// A finalizer (splitmix64's): FNV's low bits alone spread poorly between similar keys.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
