import EddyCore
import Foundation
import Logging

extension CacheStore {
    /// Commits dirty rows, deletions and unlinks to the index queue: fdatasync each dirty file, then
    /// one transaction, then unlink replaced files. `wait` blocks until done (shutdown, eviction).
    public func flush(wait: Bool = false) {
        guard writer.commit(resources.values, wait: wait) else { return }
        if maxSize > 0 {
            let measured = writer.measureIndex()
            share.totals.withLock { $0.index = measured }
        }
        // Resources nobody uses and whose state is committed leave memory, through `leaving`
        // until the index has them (the commit runs in the background).
        leaving = leaving.filter { !writer.isSettled($0.value) }
        if resources.count > CacheStore.residentResources {
            for (k, r) in resources where !r.dirty && !isInUse(r) {
                resources[k] = nil
                guard !writer.isSettled(r) else { continue }
                if r.fd >= 0 { close(r.fd); r.fd = -1 }
                leaving[k] = r
            }
        }
        trimAt = resources.count + CacheStore.residentResources
    }

    /// Evicts if over the budget (see `CacheEvictor`); for callers that freed ranges since the
    /// last confirmation (responses moved on).
    public func enforceLimit() {
        evictor.enforceLimit()
    }

    /// Evicts `victims` of this stripe that another stripe's evictor handed over (see
    /// `evictElsewhere`), unless pinned, in use or replaced since; an empty list enforces the limit.
    public func evictIfIdle(_ victims: [(id: Int, key: String)]) {
        evictor.evict(handedOver: victims)
    }

    /// Adds a listener; it hears every later change, after the listeners added before it (the
    /// evictor is the first).
    public func addListener(_ listener: any CacheListener) {
        listeners.append(listener)
    }

    /// Removes a listener added before (by identity); removing the evictor leaves the store
    /// unbounded but for `enforceLimit`.
    public func removeListener(_ listener: any CacheListener) {
        listeners.removeAll { $0 === listener }
    }

    /// Commits everything and folds the write-ahead log into the database, so the next start does
    /// not have to read a long WAL. Called on graceful shutdown.
    public func shutdown() {
        flush(wait: true)
        writer.checkpoint()
    }

    /// The data file path of the resource's current version.
    public func path(_ r: CachedResource) -> String {
        files.path(r)
    }
}
