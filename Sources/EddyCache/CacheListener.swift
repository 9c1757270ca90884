/// Hears what a cache does to its confirmed bytes, as Media3's `Cache.Listener` hears of spans
/// added, removed and touched. Listeners run on the loop thread of the store (its stripe's: a
/// listener of several stripes hears them on several threads), inside the call that caused the
/// event, after the cache's state (confirmed ranges, `totalBytes`) reflects it.
///
/// The counts add up: the bytes reported confirmed, less those reported dropped and removed, are
/// the cache's `totalBytes` (beyond what it held at start). This is how eviction stays out of
/// storage: `CacheEvictor` is a listener like any other.
///
/// Every method has an empty default, so a listener implements only what it needs.
public protocol CacheListener: AnyObject {
    /// `confirm` ran on `resource`; `count` bytes of it are newly confirmed. Reported even when
    /// `count` is 0 (the range was confirmed already): the cache may still be over its budget
    /// from before, when responses held what could have been evicted.
    func bytesConfirmed(_ resource: CachedResource, count: Int)

    /// `count` confirmed bytes of `resource` were taken back: blocks evicted, damage dropped, or
    /// the whole version given up for a new one (`replace`).
    func bytesDropped(_ resource: CachedResource, count: Int)

    /// `resource` left the cache (removed, evicted, or superseded by an insert under its key),
    /// taking its `bytes` confirmed bytes with it.
    func resourceRemoved(_ resource: CachedResource, bytes: Int)

    /// `resource` was used: `touch` moved its last access.
    func resourceTouched(_ resource: CachedResource)
}

extension CacheListener {
    public func bytesConfirmed(_ resource: CachedResource, count: Int) {}
    public func bytesDropped(_ resource: CachedResource, count: Int) {}
    public func resourceRemoved(_ resource: CachedResource, bytes: Int) {}
    public func resourceTouched(_ resource: CachedResource) {}
}
