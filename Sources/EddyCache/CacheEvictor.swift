import Foundation

/// Keeps a cache within `--max-size`. It is a listener of its store, as Media3's `CacheEvictor`
/// is a `Cache.Listener`: storage only confirms bytes and says so; the evictor, hearing of
/// confirmed bytes while the cache is over its budget, frees room:
///
/// 1. whole resources nobody uses, least recently used first (from the index, which knows every
///    resource, not only those in memory);
/// 2. if responses in flight hold the rest, blocks of those resources outside what they and their
///    fills still need (the store's `protectedRanges`).
///
/// Pinned resources are never touched. Each round goes a little under the budget (`target`), so
/// that its synchronous commit is not paid once per confirmed block. Each store makes its own
/// evictor (`CacheStore.evictor`), which lives as long as the store.
///
/// A striped cache (`CacheStore.stripes`) has one budget and one least-recently-used order, the
/// index's, but each resource may be touched only on its own stripe's loop. So an evictor removes
/// its own stripe's victims and hands the others to their stripes (`CacheStore.evictElsewhere`),
/// counting their bytes as on their way out; when blocks in use must go too and its own are not
/// enough, it asks the other stripes to enforce the limit themselves.
public final class CacheEvictor: CacheListener {
    /// The store evicted from; it owns the evictor.
    private unowned let store: CacheStore
    /// When the index may be asked for candidates again: after a query found only resources in
    /// use, it is not repeated for every confirmed block.
    private var nextIndexEviction = 0.0
    /// Victims handed to their own stripes, by id, with when (seconds): counted as on their way
    /// out for `handOverWait`, then skipped until `handOverMemory` (their stripe kept them: in use).
    private var handedOver: [Int: Double] = [:]
    static let handOverWait = 1.0
    static let handOverMemory = 10.0
    /// When the other stripes were last asked to enforce the limit themselves.
    private var askedOthersAt = 0.0

    init(store: CacheStore) {
        self.store = store
    }

    /// Evicts when confirmed bytes took the cache over its budget.
    public func bytesConfirmed(_ resource: CachedResource, count: Int) {
        enforceLimit()
    }

    /// Evicts if over the budget (responses may have moved on since the last attempt).
    public func enforceLimit() {
        if store.maxSize > 0 && store.totalBytes > store.budget { evict() }
    }

    /// What a round of eviction brings confirmed bytes down to: the budget less a headroom of four
    /// blocks, or a sixteenth of the budget when that is less, so that a small cache is not
    /// emptied to make room for one block. Both stages use it.
    static func target(budget: Int) -> Int {
        Swift.max(0, budget - Swift.min(4 * CacheStore.blockSize, budget / 16))
    }

    /// Evicts down to `target`: whole idle resources first, then blocks of resources in use.
    private func evict() {
        let target = CacheEvictor.target(budget: store.budget)
        let (removedAny, pending) = evictIdleResources(downTo: target)
        // The disk space of removed resources is freed now: their files are unlinked once the
        // index no longer names them, instead of up to a timer period later (the directory
        // overshot --max-size by half for about a second, measured).
        if removedAny { store.flush(wait: true) }
        guard store.totalBytes - pending > store.budget else { return }
        evictBlocksInUse(downTo: target)
        let now = Date().timeIntervalSince1970
        if store.totalBytes > store.budget, let elsewhere = store.evictElsewhere, now - askedOthersAt >= 0.1 {
            askedOthersAt = now
            for s in 0..<store.share.stripeCount where s != store.stripe { elsewhere(s, []) }
        }
    }

    /// First stage: whole resources that are neither pinned nor in use, least recently used
    /// first, in up to 8 rounds of up to 64 more candidates each; other stripes' victims are
    /// handed to them. Returns whether it removed any, and the bytes on their way out elsewhere.
    private func evictIdleResources(downTo target: Int) -> (Bool, Int) {
        let now = Date().timeIntervalSince1970
        guard now >= nextIndexEviction else { return (false, 0) }
        handedOver = handedOver.filter { now - $0.value < CacheEvictor.handOverMemory }
        var removedAny = false
        var pending = 0
        var counted = Set<Int>()
        var elsewhere: [Int: [(id: Int, key: String)]] = [:]
        var rounds = 0
        while store.totalBytes - pending > target && rounds < 8 {
            rounds += 1
            store.flush(wait: true) // the candidates query must see recent rows and access times
            guard let candidates = try? store.index.evictionCandidates(limit: 64 * rounds), !candidates.isEmpty else { break }
            var progressed = false
            for c in candidates where store.totalBytes - pending > target && !counted.contains(c.id) {
                let home = store.stripe(of: c.key)
                guard home == store.stripe else {
                    if let at = handedOver[c.id] {
                        if now - at < CacheEvictor.handOverWait { pending += c.bytes } // still on its way out
                    } else {
                        handedOver[c.id] = now
                        elsewhere[home, default: []].append((c.id, c.key))
                        pending += c.bytes
                        progressed = true
                    }
                    counted.insert(c.id)
                    continue
                }
                // The table first: `lookup` would set the access time of a resource in memory.
                let r = store.resources[c.key] ?? store.lookup(c.key, now: 0)
                guard let r, r.id == c.id, !r.pinned, !store.isInUse(r) else { continue }
                removeEvicting(r)
                progressed = true
                removedAny = true
            }
            if !progressed {
                nextIndexEviction = now + 1 // everything left is in use; don't re-query per block
                break
            }
        }
        for (home, victims) in elsewhere { store.evictElsewhere?(home, victims) }
        return (removedAny, pending)
    }

    /// Removes `victims` of this stripe that another stripe's evictor chose from the index, unless
    /// they were pinned, used or replaced since; an empty list enforces the limit here.
    func evict(handedOver victims: [(id: Int, key: String)]) {
        guard !victims.isEmpty else { return enforceLimit() }
        var removedAny = false
        for (id, key) in victims {
            let r = store.resources[key] ?? store.lookup(key, now: 0)
            guard let r, r.id == id, !r.pinned, !store.isInUse(r) else { continue }
            removeEvicting(r)
            removedAny = true
        }
        if removedAny { store.flush(wait: true) }
    }

    /// Second stage: frees whole blocks of resources in use outside their protected ranges (and
    /// removes idle resources the index did not offer), least recently used first.
    private func evictBlocksInUse(downTo target: Int) {
        var punches: [(String, Range<Int>)] = []
        var removedAny = false
        let resident = store.resources.values.sorted(by: { $0.lastAccess < $1.lastAccess })
        for r in resident where store.totalBytes > target && !r.pinned {
            guard store.isInUse(r) else {
                removeEvicting(r)
                removedAny = true
                continue
            }
            var evictable = r.confirmed
            let kept = store.protectedRanges(r)
            for keep in kept { evictable.remove(keep) }
            for range in evictable.ranges where store.totalBytes > target {
                let whole = CacheStore.blocks.wholeBlocks(in: range, length: r.meta.length)
                guard !whole.isEmpty else { continue }
                let take = Swift.min(whole.count, CacheStore.blocks.ceiling(store.totalBytes - target))
                let cut = whole.lowerBound..<(whole.lowerBound + take)
                let freed = store.unconfirm(r, cut)
                store.logger.debug("evicting blocks in use", metadata: ["key": "\(r.key)", "cut": "\(cut)", "kept": "\(kept)"])
                punches.append((store.path(r), cut))
                store.onEvict?(freed)
            }
        }
        guard !punches.isEmpty else {
            if removedAny { store.flush(wait: true) } // unlink the removed files now, not at the next timer
            return
        }
        // Index first (it must stop vouching for the bytes), then free the disk space. Done here, not
        // on the index queue, so a fill can not rewrite a range between the commit and the punch.
        store.flush(wait: true)
        for (path, range) in punches { DataFiles.punchHole(path: path, range) }
    }

    /// Removes a whole resource and reports it to `onEvict`.
    private func removeEvicting(_ r: CachedResource) {
        let freed = r.accountedBytes
        store.remove(r)
        store.onEvict?(freed)
    }
}
