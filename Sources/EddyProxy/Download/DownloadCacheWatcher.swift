import EddyCache

/// Hears the cache lose bytes of pinned resources (a new representation from the origin replaced
/// a download's copy; a damaged block was dropped) and tells the download engine, after the
/// cache's call has returned, so that the jobs holding them fetch them again.
final class DownloadCacheWatcher: CacheListener {
    weak var engine: DownloadEngine?
    private var lost = Set<String>()

    init(engine: DownloadEngine) { self.engine = engine }

    func bytesDropped(_ resource: CachedResource, count: Int) {
        if resource.pinned && count > 0 { note(resource.key) }
    }

    func resourceRemoved(_ resource: CachedResource, bytes: Int) {
        if resource.pinned { note(resource.key) }
    }

    private func note(_ key: String) {
        lost.insert(key)
        guard let engine else { return }
        // Not from inside the cache's call (a fill's head is being handled): from the loop, next.
        engine.soon { [weak self] in
            guard let self, let engine = self.engine, !self.lost.isEmpty else { return }
            let keys = self.lost
            self.lost = []
            engine.storedCopiesLost(keys)
        }
    }
}
