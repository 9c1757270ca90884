import EddyCore
import Foundation

/// `eddy cache verify`: checks every confirmed byte of a cache directory against its data files
/// and per-block checksums, and drops from the index whatever is damaged, so that it is fetched
/// again instead of served. Runs on a stopped cache (it takes the directory's lock).
public enum CacheVerifier {
    /// What a verification found.
    public struct Report: Sendable, Equatable {
        public var resources = 0
        /// Blocks read and compared with their checksum.
        public var blocksChecked = 0
        /// Confirmed blocks without a checksum (stored before checksums existed): not checkable.
        public var blocksWithoutChecksum = 0
        public var damagedBlocks = 0
        public var missingFiles = 0
        public var truncatedFiles = 0
        /// Confirmed bytes dropped from the index.
        public var droppedBytes = 0

        /// True when nothing was damaged.
        public var isClean: Bool { damagedBlocks == 0 && missingFiles == 0 && truncatedFiles == 0 }
    }

    /// Verifies the cache in `directory`; `onDamage` hears of each damaged resource.
    public static func run(directory: String, onDamage: (String, String) -> Void = { _, _ in }) throws -> Report {
        let lock = try DataFiles.lockDirectory(directory)
        defer { close(lock) }
        let index = try IndexDatabase(path: directory + "/index.sqlite")
        var report = Report()
        for var row in try index.allRows() {
            report.resources += 1
            let before = row.ranges
            let path = DataFiles.path(directory: directory, id: row.id, version: row.version)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                if !row.ranges.isEmpty {
                    report.missingFiles += 1
                    onDamage(row.key, "data file missing")
                    row.ranges = ByteRangeSet()
                }
            } else {
                defer { close(fd) }
                var st = stat()
                if fstat(fd, &st) == 0, let end = row.ranges.ranges.last?.upperBound, Int(st.st_size) < end {
                    report.truncatedFiles += 1
                    onDamage(row.key, "data file truncated at \(st.st_size)")
                    row.ranges.remove(CacheStore.blocks.floor(Int(st.st_size))..<Int.max)
                }
                let sums = try index.checksums(id: row.id, version: row.version)
                for span in row.ranges.ranges {
                    for block in CacheStore.blocks.blocks(touching: span) {
                        let range = CacheStore.blocks.range(ofBlock: block, length: row.meta.length)
                        guard row.ranges.contains(range) else { continue }
                        guard let expected = sums[block] else { report.blocksWithoutChecksum += 1; continue }
                        report.blocksChecked += 1
                        if DataFiles.crc(fd: fd, range) != expected {
                            report.damagedBlocks += 1
                            onDamage(row.key, "block \(block) (bytes \(range.lowerBound)-\(range.upperBound - 1)) fails its checksum")
                            row.ranges.remove(range)
                        }
                    }
                }
            }
            if row.ranges != before {
                report.droppedBytes += before.count - row.ranges.count
                try index.commit(upserts: [row], deletes: [])
            }
        }
        return report
    }
}
