import EddyCache
import EddyLoop

/// Hears the cache lose bytes of pinned resources (a new representation from the origin replaced
/// a download's copy; a damaged block was dropped) and tells the download engine, after the
/// cache's call has returned, so that the jobs holding them fetch them again. It listens to every
/// stripe, on each stripe's loop, and hands the keys to the engine's loop through its mailbox.
package final class DownloadCacheWatcher: CacheListener, @unchecked Sendable {
    /// Touched on the engine's loop only.
    private weak var engine: DownloadEngine?
    private var lost = Set<String>()
    /// The engine's loop.
    private let mailbox: LoopMailbox

    package init(engine: DownloadEngine, mailbox: LoopMailbox) {
        self.engine = engine
        self.mailbox = mailbox
    }

    package func bytesDropped(_ resource: CachedResource, count: Int) {
        if resource.pinned && count > 0 { note(resource.key) }
    }

    package func resourceRemoved(_ resource: CachedResource, bytes: Int) {
        if resource.pinned { note(resource.key) }
    }

    /// Not from inside the cache's call (a fill's head is being handled): from the engine's loop,
    /// next, in one batch.
    private func note(_ key: String) {
        mailbox.post { [self] in
            lost.insert(key)
            guard let engine else { return }
            engine.soon { [weak self] in
                guard let self, let engine = self.engine, !self.lost.isEmpty else { return }
                let keys = self.lost
                self.lost = []
                engine.storedCopiesLost(keys)
            }
        }
    }
}
