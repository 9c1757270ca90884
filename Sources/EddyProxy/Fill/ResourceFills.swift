import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// The proxy's live state for one cached resource, attached to `CachedResource.attachment`:
/// the fills in flight and the responses waiting for bytes. Waiters are woken by an event when a
/// fill writes, never by polling.
final class ResourceFills {
    var fills: [FillSession] = []
    /// Responses streaming from this resource.
    var readers: [ObjectIdentifier: CacheExchange] = [:]
    /// Responses blocked on bytes not yet written.
    var waiters: [ObjectIdentifier: CacheExchange] = [:]
    /// A conditional request in flight for this resource; others wait for its answer.
    var revalidation: FillSession?
    /// Set when the origin answered a Range request with 200: asking again is pointless, so
    /// responses wait for the whole-body fill instead.
    var originIgnoresRange = false
    /// Freshness lifetime for (version, storedAt), cached: parsing dates on every hit is measurable.
    var lifetime: (version: Int, storedAt: Int, seconds: Int)?
    /// Response headers for (version, storedAt), without Age.
    var headerCache: (version: Int, storedAt: Int, headers: HeaderBlock)?
    /// Whether the resource is a playlist, for (version, complete): sniffing needs the first bytes.
    var playlistCheck: (version: Int, complete: Bool, isPlaylist: Bool)?
    /// The playlist kind, once this resource has been read as an HLS playlist.
    var hlsKind: PlaylistKind?
    /// When eddy last got this playlist from the origin (monotonic seconds), for live freshness.
    var playlistFetchedAt: Double?
    /// The body held in memory (small complete resources), see `MemoryTier`.
    var memory: MemoryTier.Entry?
    /// Set when writing this resource's bytes failed: responses continue uncached from the origin.
    var storeBroken = false
    /// The offset at which the last fill timed out (the origin stalled), if any.
    var stalledAt: Int?

    static func of(_ r: CachedResource) -> ResourceFills {
        // Only the proxy attaches, and only this type: an unchecked cast, as this runs several
        // times per hit and `as?` is a runtime type check.
        if let a = r.attachment { return unsafeDowncast(a, to: ResourceFills.self) }
        let f = ResourceFills()
        r.attachment = f
        return f
    }

    /// Wakes every waiter; those still short of bytes register again.
    func wake() {
        guard !waiters.isEmpty else { return }
        let list = waiters.values
        waiters.removeAll(keepingCapacity: true)
        for w in list { w.pump() }
    }

    /// What block eviction must spare: each response's bytes from a little behind its position (still
    /// queued for sendfile) to its end, and each fill's span.
    func protectedRanges() -> [Range<Int>] {
        var out: [Range<Int>] = []
        for r in readers.values { out.append(r.neededRange) }
        for f in fills where f.state.isActive {
            out.append(f.unconfirmedWindow.lowerBound..<(f.end ?? Int.max))
        }
        return out
    }

    /// Records that the origin described this resource as of `time` (for live playlist freshness).
    func noteOriginAnswer(at time: Double) {
        playlistFetchedAt = Swift.max(playlistFetchedAt ?? 0, time)
    }

    var isBusy: Bool { !fills.isEmpty || !waiters.isEmpty || revalidation != nil }
}
