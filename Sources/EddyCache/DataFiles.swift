import CSystem
import Foundation
import Logging

/// The files of a cache directory: one sparse data file per resource version,
/// `data/XX/<id>-<version>`, and the directory lock.
///
/// Only file I/O lives here. Which bytes of a file are valid is not its business: that is the
/// confirmed ranges, which the store keeps and the index records.
final class DataFiles {
    /// The cache directory ("" for a store that caches nothing).
    let directory: String
    private let logger: Logger
    private var lastWriteErrorLog = 0.0

    init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    /// The data file path of the resource's current version.
    func path(_ r: CachedResource) -> String {
        DataFiles.path(directory: directory, id: r.id, version: r.version)
    }

    /// `data/XX/<id>-<version>` under `directory`.
    static func path(directory: String, id: Int, version: Int) -> String {
        // Two hex digits by hand: String(format:) starts Foundation's formatter (a cost at the first
        // hit after a start, issue 33, and per file opened after).
        let low = id & 0xFF
        return "\(directory)/data/\(low < 16 ? "0" : "")\(String(low, radix: 16))/\(id)-\(version)"
    }

    /// Opens the data file of `r`'s current version, creating it (and its subdirectory); `r.fd` is
    /// -1 when that fails, and the resource is then passed through uncached.
    func create(_ r: CachedResource) {
        let p = path(r)
        r.fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if r.fd < 0 && errno == ENOENT {
            // Its subdirectory is not made yet (a new cache, or one emptied under eddy): a mkdir
            // only then, not one system call per new resource (issue 59).
            mkdir((p as NSString).deletingLastPathComponent, 0o700) // the cache holds keys of downloaded assets: owner only
            r.fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        }
        if r.fd < 0 {
            logger.error("cannot open cache file", metadata: ["path": "\(p)", "error": "\(String(cString: strerror(errno)))"])
        }
    }

    /// Opens the existing data file of `r`'s current version without creating it. `missing` tells
    /// a file that is gone (damage) from one that can not be opened now (descriptors ran out).
    func openExisting(_ r: CachedResource) -> (fd: Int32, missing: Bool) {
        let fd = open(path(r), O_RDWR | O_CLOEXEC)
        return (fd, fd < 0 && errno == ENOENT)
    }

    /// Writes all of `bytes` at `offset`, retrying EINTR; false when the write failed (disk full,
    /// I/O error), which is logged at most once per 10 seconds, not once per chunk.
    func write(fd: Int32, offset: Int, bytes: UnsafeRawBufferPointer) -> Bool {
        guard fd >= 0 else { return false }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                let err = String(cString: strerror(errno))
                let now = Date().timeIntervalSince1970
                if now - lastWriteErrorLog > 10 {
                    lastWriteErrorLog = now
                    logger.error("cache write failed; passing through uncached", metadata: ["error": "\(err)", "dir": "\(directory)"])
                }
                return false
            }
            done += n
        }
        return true
    }

    /// Reads all of `range` of `fd` into `buffer`, retrying short reads and EINTR; false when the
    /// file is short or unreadable.
    static func read(fd: Int32, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard fd >= 0, buffer.count >= range.count else { return false }
        var done = 0
        while done < range.count {
            let n = pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The CRC-32 of `range` of the file, or nil when it can not be read whole.
    static func crc(fd: Int32, _ range: Range<Int>) -> UInt32? {
        var buf = [UInt8](repeating: 0, count: range.count)
        guard buf.withUnsafeMutableBytes({ read(fd: fd, range, into: $0) }) else { return nil }
        return buf.withUnsafeBytes { UInt32(truncatingIfNeeded: eddy_crc32(0, $0.baseAddress, UInt($0.count))) }
    }

    /// Frees the disk space of `range` of the file at `path`; best effort (a file already unlinked
    /// has nothing left to free).
    static func punchHole(path: String, _ range: Range<Int>) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = eddy_punch_hole(fd, Int64(range.lowerBound), Int64(range.count))
        close(fd)
    }

    /// Makes the 256 subdirectories of a new cache's `data` on a thread of its own: on a busy
    /// file system each took a millisecond or more (ext4 spreads new directories over its block
    /// groups), and made on first use they stalled the loop that stored the first resources (a
    /// new cache's first download held the admin API 300 ms, issue 59). `create` makes any it
    /// finds missing itself, so the thread only goes ahead of it.
    static func makeSubdirectoriesAhead(_ data: String) {
        var info = stat()
        guard stat(data + "/ff", &info) != 0 else { return }
        Thread.detachNewThread {
            for low in 0..<256 { mkdir(data + "/" + (low < 16 ? "0" : "") + String(low, radix: 16), 0o700) }
        }
    }

    /// `mkdir -p` giving every directory it creates `mode` (as FileManager's `createDirectory`
    /// with attributes did), in plain system calls: the first use of FileManager took 0.3 ms of
    /// eddy's start-up (issue 33). Throws when `path` is not a directory afterwards.
    static func makeDirectories(_ path: String, mode: mode_t) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
            prefix += part
            if mkdir(prefix, mode) != 0 {
                let err = errno
                guard err == EEXIST else { throw CacheStoreError(description: "cannot create \(prefix): \(String(cString: strerror(err)))") }
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw CacheStoreError(description: "\(path) is not a directory")
        }
    }

    /// Takes the cache directory's lock (`lock`, a POSIX record lock, which belongs to the process),
    /// so that two eddy processes, or eddy and `eddy cache verify`, never write one index; the
    /// descriptor is kept while the store is open.
    static func lockDirectory(_ directory: String) throws -> Int32 {
        let fd = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheStoreError(description: "cannot open \(directory)/lock: \(String(cString: strerror(errno)))") }
        guard lockf(fd, F_TLOCK, 0) == 0 else {
            close(fd)
            throw CacheStoreError(description: "cache directory \(directory) is in use by another eddy process")
        }
        return fd
    }

    /// Removes data files the index does not name: older versions, and ids that were never committed.
    /// Ids above `startupMaxID` and versions above the committed one belong to this run and are kept.
    /// Runs on the index queue, where `allVersions` may use the write connection.
    static func removeOrphans(directory: String, index: IndexDatabase, startupMaxID: Int, logger: Logger) {
        guard let versions = try? index.allVersions() else { return }
        let fm = FileManager.default
        let data = directory + "/data"
        var removed = 0
        for sub in (try? fm.contentsOfDirectory(atPath: data)) ?? [] {
            for name in (try? fm.contentsOfDirectory(atPath: "\(data)/\(sub)")) ?? [] {
                let parts = name.split(separator: "-")
                if parts.count == 2, let id = Int(parts[0]), let v = Int(parts[1]) {
                    if id > startupMaxID { continue }
                    if let committed = versions[id], v >= committed { continue }
                }
                unlink("\(data)/\(sub)/\(name)")
                removed += 1
            }
        }
        if removed > 0 { logger.info("removed orphaned cache files", metadata: ["count": "\(removed)"]) }
    }
}
