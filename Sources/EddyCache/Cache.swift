import EddyCore

/// The cache as the layers above see it, in the style of Media3's `Cache`: resources looked up by
/// key, bytes written and then confirmed block by block, read back as file spans or bytes, and
/// listeners told of every change (eviction is one of them, see `CacheEvictor`). `CacheStore` is
/// the implementation. Everything runs on the loop thread of the store (of its stripe, see
/// `CacheStore.stripes`).
///
/// Holes are explicit. The cache vouches only for *confirmed* bytes, and `holes(in:_:)` names
/// exactly the sub-ranges of a request that it does not vouch for; nothing fills a hole behind
/// the caller's back (a read never goes to the origin, and a sparse hole in a data file would
/// read as zeros). Reads are of the data file as written and are not checked against `confirmed`
/// on each call, because the streaming path also serves bytes that its own fill has written just
/// ahead of their confirmation. So a caller asks `holes` (or `confirmed`) first, and reads only
/// what is confirmed or what its own fill wrote.
public protocol Cache: AnyObject {
    // MARK: Size

    /// Confirmed bytes across the cache.
    var totalBytes: Int { get }

    /// Confirmed bytes of pinned resources, which eviction never frees.
    var pinnedBytes: Int { get }

    /// What confirmed bytes may occupy (`--max-size` less the index); 0 when unbounded.
    var budget: Int { get }

    // MARK: Lookup

    /// The resource stored under `key`, from memory or the index; nil when there is none.
    func lookup(_ key: String, now: Int) -> CachedResource?

    /// Creates an empty resource (version 1) under `key`, replacing whatever was there.
    func insert(key: String, meta: ResourceMeta, now: Int) -> CachedResource

    /// Drops every byte of the current version and starts a new one described by `meta`.
    func replace(_ r: CachedResource, with meta: ResourceMeta)

    /// Records refreshed metadata (a 304) for the same version.
    func refresh(_ r: CachedResource, meta: ResourceMeta)

    /// Forgets a resource: its index row and data file. While the layer above still uses it, its
    /// confirmed bytes and open (unlinked) file stay readable to those holding it, until they let go.
    func remove(_ r: CachedResource)

    /// The variants stored for the URL key `base` (keys starting with `VaryKey.prefix(base)`),
    /// committed or not, most recently used first.
    func variants(of base: String) -> [(key: String, lastAccess: Int)]

    // MARK: Reading

    /// The sub-ranges of `range` that are not confirmed, ascending; empty when all of it is.
    func holes(in r: CachedResource, _ range: Range<Int>) -> [Range<Int>]

    /// Checks confirmed bytes of `range` read back from the index against their checksums; false
    /// when some were damaged (they are holes now).
    func verify(_ r: CachedResource, _ range: Range<Int>) -> Bool

    /// The stored bytes `range` of `r` as a span of its open file, for sendfile.
    func span(_ r: CachedResource, _ range: Range<Int>) -> FileSpan

    /// The stored bytes `range` of `r` (for small bodies); nil when the file is short or unreadable.
    func read(_ r: CachedResource, _ range: Range<Int>) -> [UInt8]?

    /// Reads `range` of `r` into `buffer`; false when the file is short or unreadable.
    func read(_ r: CachedResource, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool

    // MARK: Writing

    /// Writes body bytes at `offset`; false when the write failed. Written bytes are not confirmed.
    func write(_ r: CachedResource, offset: Int, bytes: UnsafeRawBufferPointer) -> Bool

    /// Marks `range` confirmed, with the CRC-32 of each block written whole (pass `[:]` for none);
    /// listeners then hear `bytesConfirmed`. Ranges are block-aligned but where a response began
    /// or ended inside a block (a suffix, another fill's start, a transfer that broke off).
    func confirm(_ r: CachedResource, _ range: Range<Int>, checksums: [Int: UInt32])

    /// Commits confirmations, metadata and removals to the index; `wait` blocks until done.
    func flush(wait: Bool)

    // MARK: Keeping

    /// Marks a resource used now (for least-recently-used eviction).
    func touch(_ r: CachedResource, now: Int)

    /// Pins or unpins a resource; pinned resources are never evicted.
    func setPinned(_ r: CachedResource, _ pinned: Bool)

    /// Adds a listener (kept until removed).
    func addListener(_ listener: any CacheListener)

    /// Removes a listener added before (by identity).
    func removeListener(_ listener: any CacheListener)
}
