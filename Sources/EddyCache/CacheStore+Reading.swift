import EddyCore

/// Reading back what the cache holds: spans of the data file for sendfile, bytes for small
/// bodies, and the holes query that says which bytes the cache does not vouch for (see `Cache`).
extension CacheStore {
    /// The stored bytes `range` of `r`, for sending with sendfile (see `FileSpan`).
    public func span(_ r: CachedResource, _ range: Range<Int>) -> FileSpan {
        FileSpan(descriptor: r.fd, offset: range.lowerBound, length: range.count)
    }

    /// Reads `range` of `r` into `buffer` (at least `range.count` bytes); false when the file is
    /// short or unreadable.
    public func read(_ r: CachedResource, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        DataFiles.read(fd: r.fd, range, into: buffer)
    }

    /// The bytes `range` of `r`, or nil when the file is short or unreadable.
    public func read(_ r: CachedResource, _ range: Range<Int>) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: range.count)
        let ok = buf.withUnsafeMutableBytes { read(r, range, into: $0) }
        return ok ? buf : nil
    }

    /// The sub-ranges of `range` that are not confirmed, ascending. Holes are explicit: the cache
    /// vouches for no byte in them, and no read fills them (see `Cache`).
    public func holes(in r: CachedResource, _ range: Range<Int>) -> [Range<Int>] {
        r.confirmed.gaps(in: range)
    }
}
