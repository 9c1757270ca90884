import EddyCore
import Foundation

/// A full check of stored bytes on demand (`eddy download verify`), on a running cache: unlike
/// `verify`, which checks each block read back from the index once, it checks every confirmed
/// block with a checksum, also those written in this run, and whether the data file is still the
/// one the resource has open (a file deleted behind eddy's back stays readable through the open
/// descriptor until the next restart, when it would be gone).
extension CacheStore {
    /// What an audit found of one resource.
    public struct Audit: Sendable {
        /// Confirmed bytes checked against a checksum.
        public var bytesChecked = 0
        /// Confirmed bytes dropped as damaged (missing, truncated or not matching): they are
        /// fetched again.
        public var bytesDropped = 0

        public init() {}
    }

    /// Checks `range` of `r`; drops damaged blocks (logged, and heard by the listeners).
    public func audit(_ r: CachedResource, _ range: Range<Int>) -> Audit {
        var out = Audit()
        let held = r.confirmed.intersection(range)
        guard !held.isEmpty else { return out }
        let before = r.confirmed.count
        var onDisk = stat(), open = stat()
        if stat(path(r), &onDisk) != 0 || (r.fd >= 0 && fstat(r.fd, &open) == 0 && (open.st_ino != onDisk.st_ino || open.st_dev != onDisk.st_dev)) {
            // Gone, or replaced by another file: nothing it holds can be trusted.
            dropDamaged(r, 0..<Int.max, reason: "data file missing")
            if r.fd >= 0 { close(r.fd) }
            files.create(r)
            out.bytesDropped = before - r.confirmed.count
            return out
        }
        guard r.fd >= 0 else { return out }
        dropPastEnd(r, fileSize: Int(onDisk.st_size))
        var known = (try? index.checksums(id: r.id, version: r.version)) ?? [:]
        known.merge(r.newChecksums) { _, new in new }
        for span in r.confirmed.intersection(range).ranges {
            for block in CacheStore.blocks.blocks(touching: span) {
                let blockRange = CacheStore.blocks.range(ofBlock: block, length: r.meta.length)
                guard let expected = known[block], r.confirmed.contains(blockRange) else { continue }
                r.unverified.remove(blockRange)
                out.bytesChecked += blockRange.count
                if DataFiles.crc(fd: r.fd, blockRange) != expected { dropDamaged(r, blockRange, reason: "checksum mismatch") }
            }
        }
        out.bytesDropped = before - r.confirmed.count
        return out
    }
}
