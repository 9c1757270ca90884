import EddyCore
import Foundation

/// Damage to the cache on disk: a data file deleted or truncated behind eddy's back, or bytes
/// flipped on a cheap disk or SD card. Damaged blocks are dropped from the index and fetched
/// again; they are never served. Each damaged resource is logged once.
extension CacheStore {
    /// Opens the data file of a resource read back from the index, and drops what the file can
    /// not hold: everything if it is missing, the bytes past its end if it is shorter.
    func openStoredFile(_ r: CachedResource) {
        let (fd, missing) = files.openExisting(r)
        guard fd >= 0 else {
            if missing && !r.confirmed.isEmpty { dropDamaged(r, 0..<Int.max, reason: "data file missing") }
            files.create(r)
            return
        }
        r.fd = fd
        var st = stat()
        if fstat(fd, &st) == 0 { dropPastEnd(r, fileSize: Int(st.st_size)) }
    }

    /// Drops the confirmed bytes a data file of `fileSize` bytes can not hold.
    func dropPastEnd(_ r: CachedResource, fileSize: Int) {
        guard let end = r.confirmed.ranges.last?.upperBound, fileSize < end else { return }
        // The block the file now ends in is incomplete too, unless it is the resource's last.
        let cut = fileSize == r.meta.length ? fileSize : CacheStore.blocks.floor(fileSize)
        dropDamaged(r, cut..<Int.max, reason: "data file truncated")
    }

    /// Checks the blocks of `range` that were read back from the index and not yet checked in this
    /// run against their stored CRC-32s (one read of each such block, once). Drops damaged blocks.
    /// Returns false when some block in `range` turned out damaged: its bytes are missing now.
    public func verify(_ r: CachedResource, _ range: Range<Int>) -> Bool {
        // Without an open file (descriptors ran out) nothing can be checked now: not damage.
        guard !r.unverified.isEmpty, !range.isEmpty, r.fd >= 0 else { return true }
        let pending = r.unverified.intersection(range)
        guard !pending.isEmpty else { return true }
        if r.knownChecksums == nil {
            r.knownChecksums = (try? index.checksums(id: r.id, version: r.version)) ?? [:]
        }
        var intact = true
        for span in pending.ranges {
            for block in CacheStore.blocks.blocks(touching: span) {
                let blockRange = CacheStore.blocks.range(ofBlock: block, length: r.meta.length)
                r.unverified.remove(blockRange)
                guard let expected = r.knownChecksums?[block], r.confirmed.contains(blockRange) else { continue }
                if DataFiles.crc(fd: r.fd, blockRange) != expected {
                    dropDamaged(r, blockRange, reason: "checksum mismatch")
                    intact = false
                }
            }
        }
        return intact
    }

    /// Forgets confirmed bytes in `range` that are not on disk as they were written, so they are
    /// fetched again; logs the damage once per resource.
    public func dropDamaged(_ r: CachedResource, _ range: Range<Int>, reason: String) {
        let dropped = unconfirm(r, range)
        guard dropped > 0, damageLogged.insert(r.key).inserted else { return }
        logger.error("cache data damaged; dropping it to fetch again", metadata: [
            "key": "\(r.key)", "reason": "\(reason)", "bytes": "\(dropped)", "file": "\(path(r))",
        ])
    }
}
