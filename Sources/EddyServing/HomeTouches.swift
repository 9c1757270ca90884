/// Which hits answered from `HitSnapshots` must be reported to their resource's home
/// (`Home.snapshotHit`): the home moves the resource's last access at most once a second
/// (`CacheStore.touch`), so a loop reports a key once a second, unless HLS prefetch is on the
/// way (a segment request starts it at every hit). Each report to another loop is a mailbox post
/// that wakes it: sending one per hit cost 8 to 16% of the 16 KiB range-hit rate with two loops
/// (bench/threads.py). One per loop, touched on its thread only; bounded.
final class HomeTouches {
    private var lastSecond: [String: Int] = [:]
    private static let capacity = 4096

    /// True when the hit on `key` at `now` (Unix seconds) is to be reported.
    func due(_ key: String, now: Int, prefetching: Bool) -> Bool {
        if prefetching { return true }
        guard lastSecond[key] != now else { return false }
        if lastSecond.count >= HomeTouches.capacity { lastSecond.removeAll(keepingCapacity: true) }
        lastSecond[key] = now
        return true
    }
}
