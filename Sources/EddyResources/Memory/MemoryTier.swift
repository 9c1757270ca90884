import EddyCache
import EddyLoop

/// Small complete bodies kept in memory, so a hit on them needs no read: the response references
/// the bytes (`ServerRequest.sendShared`). A pread per small hit was the largest system call after
/// the send itself in the 16 KiB hit profile. Bounded by `budget` bytes; replacement is CLOCK
/// (second chance), an LRU approximation that costs one flag write per hit.
///
/// Only bodies under `ServerRequest.sendfileThreshold`: from there on, sendfile from the page
/// cache costs eddy no more than the copy from memory, and its client less (the pages it reads are
/// the same ones each time, where every reply from memory is a fresh copy that crosses from
/// eddy's core to the client's): 16 KiB hits on one loop at 8 connections were 0.94 of the same
/// build sending from the file, 48 KiB hits 0.79-0.90 (bench/RESULTS.md, issue 33, eleventh part).
package final class MemoryTier {
    /// One resource version's body.
    final class Entry {
        let bytes: SharedBytes
        let version: Int
        var referenced = false
        var evicted = false

        init(bytes: SharedBytes, version: Int) {
            self.bytes = bytes
            self.version = version
        }
    }

    /// Bodies up to this size are kept.
    static let maxBody = ServerRequest.sendfileThreshold - 1
    let budget: Int
    package private(set) var used = 0
    private var ring: [Entry] = []
    private var hand = 0

    package init(budget: Int) { self.budget = budget }

    /// The body of `r`'s current version, if held.
    package func body(of r: CachedResource, _ fills: ResourceCoordinator) -> SharedBytes? {
        guard let e = fills.memory else { return nil }
        guard !e.evicted, e.version == r.version else {
            drop(e)
            fills.holdInMemory(nil)
            return nil
        }
        e.referenced = true
        return e.bytes
    }

    /// Reads `r`'s whole body into memory if it is complete and small, evicting others to fit.
    package func admit(_ r: CachedResource, _ fills: ResourceCoordinator, store: any Cache) -> SharedBytes? {
        guard budget > 0, r.isComplete, let len = r.meta.length, len > 0, len <= MemoryTier.maxBody, len <= budget,
              let bytes = SharedBytes(count: len, fill: { store.read(r, 0..<len, into: $0) }) else { return nil }
        if let old = fills.memory { drop(old) }
        let e = Entry(bytes: bytes, version: r.version)
        fills.holdInMemory(e)
        ring.append(e)
        used += len
        while used > budget { sweep() }
        if dead > ring.count / 2 + 16 {
            // Entries dropped by eviction or a version change leave the ring in one pass.
            ring.removeAll { $0.evicted }
            dead = 0
            hand = 0
        }
        return bytes
    }

    private func drop(_ e: Entry) {
        guard !e.evicted else { return }
        e.evicted = true
        used -= e.bytes.count
        dead += 1
    }

    /// Evicted entries still in the ring; compacted away once they outnumber the live ones.
    private var dead = 0

    /// Advances the clock hand: a referenced entry gets a second chance, the first unreferenced
    /// one is evicted.
    private func sweep() {
        while ring.count > dead {
            if hand >= ring.count { hand = 0 }
            let e = ring[hand]
            hand += 1
            if e.evicted { continue }
            if e.referenced {
                e.referenced = false
                continue
            }
            drop(e)
            return
        }
    }
}
