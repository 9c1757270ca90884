import CSystem
import Foundation

/// Keeping the cache within `--max-size`: whole idle resources first, least recently used first,
/// then blocks of resources in use that no response or fill still needs.
extension CacheStore {
    /// Evicts if over `maxSize` (responses may have moved on since the last attempt).
    public func enforceLimit() {
        if maxSize > 0 && totalBytes > budget { evict() }
    }

    /// Evicts until under `maxSize`: first whole resources nobody uses, least recently used first;
    /// then, if responses in flight hold the rest, blocks of those resources outside what they and
    /// their fills still need (`protectedRanges`). Pinned resources are never touched.
    func evict() {
        let now = Date().timeIntervalSince1970
        // Down to a little under the budget, so that one synchronous commit (which unlinks the
        // evicted files at once, not at the next timer flush) is not paid per confirmed block.
        let target = Swift.max(0, budget - Swift.min(4 * CacheStore.blockSize, budget / 16))
        var removedAny = false
        if now >= nextIndexEviction {
            var rounds = 0
            while totalBytes > target && rounds < 8 {
                rounds += 1
                flush(wait: true) // the candidates query must see recent rows and access times
                guard let candidates = try? index.evictionCandidates(limit: 64), !candidates.isEmpty else { break }
                var progressed = false
                for (id, key) in candidates where totalBytes > target {
                    let r = resources[key] ?? lookup(key, now: 0)
                    guard let r, r.id == id, !r.pinned, !isInUse(r) else { continue }
                    let freed = r.accountedBytes
                    remove(r)
                    onEvict?(freed)
                    progressed = true
                    removedAny = true
                }
                if !progressed {
                    nextIndexEviction = now + 1 // everything left is in use; don't re-query per block
                    break
                }
            }
        }
        // The disk space of removed resources is freed now: their files are unlinked once the
        // index no longer names them, instead of up to a timer period later (the directory
        // overshot --max-size by half for about a second, measured).
        if removedAny { flush(wait: true) }
        if totalBytes > budget { evictBlocksInUse() }
    }

    /// Second stage of `evict`: frees whole blocks of resources in use, down to a little under the
    /// limit so the synchronous commit below is not paid per block.
    private func evictBlocksInUse() {
        let target = Swift.max(0, budget - Swift.max(4 * CacheStore.blockSize, budget / 16))
        var punches: [(String, Range<Int>)] = []
        var removedAny = false
        for r in resources.values.sorted(by: { $0.lastAccess < $1.lastAccess }) where totalBytes > target && !r.pinned {
            guard isInUse(r) else {
                let freed = r.accountedBytes
                remove(r)
                onEvict?(freed)
                removedAny = true
                continue
            }
            var evictable = r.confirmed
            for keep in protectedRanges(r) { evictable.remove(keep) }
            for range in evictable.ranges where totalBytes > target {
                let whole = CacheStore.blocks.wholeBlocks(in: range, length: r.meta.length)
                guard !whole.isEmpty else { continue }
                let take = Swift.min(whole.count, CacheStore.blocks.ceiling(totalBytes - target))
                let cut = whole.lowerBound..<(whole.lowerBound + take)
                let freed = unconfirm(r, cut)
                punches.append((path(r), cut))
                onEvict?(freed)
            }
        }
        guard !punches.isEmpty else {
            if removedAny { flush(wait: true) } // unlink the removed files now, not at the next timer
            return
        }
        // Index first (it must stop vouching for the bytes), then free the disk space. Done here, not
        // on the index queue, so a fill can not rewrite a range between the commit and the punch.
        flush(wait: true)
        for (p, range) in punches {
            let fd = open(p, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            _ = eddy_punch_hole(fd, Int64(range.lowerBound), Int64(range.count))
            close(fd)
        }
    }
}
