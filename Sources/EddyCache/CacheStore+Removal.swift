import EddyCore
import Glibc

/// Forgetting a resource: at once for the index, the disk's names and the totals; for its readers
/// only when they let go of it.
extension CacheStore {
    /// Forgets a resource: index row and data file. While it is in use (`isInUse`: responses
    /// still reading it after a purge, or a refresh's new version taking its URL's place, while a
    /// player is mid-body) they go on reading its confirmed bytes from its open descriptor, the
    /// file unlinked as nginx and Varnish keep a replaced object for its readers; the descriptor
    /// closes with the last of them (`CachedResource.deinit`). Either way its bytes leave the
    /// totals now, and nothing is written to it or confirmed for it again (`isRemoved`).
    public func remove(_ r: CachedResource) {
        let keepingReadable = isInUse(r)
        guard !r.isRemoved else {
            // Removed before (a fill ending on a purged resource drops it again): its row, file
            // and bytes went then; its key may name another resource now, which must not hear of it.
            if !keepingReadable { forgetBytes(r) }
            return
        }
        let bytes = r.accountedBytes
        share.add(-bytes, pinned: r.pinned)
        r.accountedBytes = 0
        r.isRemoved = true
        // Only itself: its key may name another resource by now.
        if resources[r.key] === r { resources[r.key] = nil }
        writer.delete(id: r.id, path: path(r))
        if keepingReadable {
            // Bytes read back from the index and not checked yet can not be checked any more (the
            // checksums go with the row): its readers fetch them instead.
            for range in r.unverified.ranges { r.confirmed.remove(range) }
            r.unverified = ByteRangeSet()
        } else {
            forgetBytes(r)
        }
        for l in listeners { l.resourceRemoved(r, bytes: bytes) }
    }

    private func forgetBytes(_ r: CachedResource) {
        r.confirmed = ByteRangeSet()
        if r.fd >= 0 { close(r.fd); r.fd = -1 }
    }
}
