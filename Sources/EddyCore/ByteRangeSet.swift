/// A set of byte offsets stored as sorted, disjoint, non-adjacent half-open ranges.
///
/// This is the "which bytes do we have" type of the cache: a resource's confirmed blocks,
/// a fill's written span, and the holes a request must fetch are all expressed with it.
/// Adjacent ranges are merged on insert, so `ranges` is always canonical.
public struct ByteRangeSet: Equatable, Sendable, CustomStringConvertible {
    /// The canonical ranges, ascending, none empty, none touching.
    public private(set) var ranges: [Range<Int>]

    /// Creates an empty set.
    public init() { ranges = [] }

    /// Creates a set holding the union of `ranges`.
    public init<S: Sequence>(_ ranges: S) where S.Element == Range<Int> {
        self.ranges = []
        for r in ranges { insert(r) }
    }

    /// True when no byte is in the set.
    public var isEmpty: Bool { ranges.isEmpty }

    /// The number of bytes in the set.
    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    public var description: String {
        "[" + ranges.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ") + "]"
    }

    /// Index of the first stored range whose upper bound is >= `offset` (binary search).
    private func firstIndex(endingAtOrAfter offset: Int) -> Int {
        var lo = 0, hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].upperBound < offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Adds every byte of `range`, merging with touching or overlapping ranges.
    public mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound, upper = range.upperBound
        let start = firstIndex(endingAtOrAfter: lower)
        var end = start
        while end < ranges.count && ranges[end].lowerBound <= upper {
            lower = Swift.min(lower, ranges[end].lowerBound)
            upper = Swift.max(upper, ranges[end].upperBound)
            end += 1
        }
        ranges.replaceSubrange(start..<end, with: [lower..<upper])
    }

    /// Removes every byte of `range`, splitting a stored range when needed.
    public mutating func remove(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var start = firstIndex(endingAtOrAfter: range.lowerBound)
        if start < ranges.count && ranges[start].upperBound == range.lowerBound { start += 1 }
        var end = start
        var replacement: [Range<Int>] = []
        while end < ranges.count && ranges[end].lowerBound < range.upperBound {
            let r = ranges[end]
            if r.lowerBound < range.lowerBound { replacement.append(r.lowerBound..<range.lowerBound) }
            if r.upperBound > range.upperBound { replacement.append(range.upperBound..<r.upperBound) }
            end += 1
        }
        ranges.replaceSubrange(start..<end, with: replacement)
    }

    /// True when every byte of `range` is in the set (an empty range is always contained).
    public func contains(_ range: Range<Int>) -> Bool {
        if range.isEmpty { return true }
        let i = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        return i < ranges.count && ranges[i].lowerBound <= range.lowerBound && ranges[i].upperBound >= range.upperBound
    }

    /// True when `offset` is in the set.
    public func contains(_ offset: Int) -> Bool { contains(offset..<(offset + 1)) }

    /// The length of the run of stored bytes starting at `offset` (0 when `offset` is a hole).
    public func contiguousLength(from offset: Int) -> Int {
        let i = firstIndex(endingAtOrAfter: offset + 1)
        guard i < ranges.count, ranges[i].lowerBound <= offset else { return 0 }
        return ranges[i].upperBound - offset
    }

    /// The first stored offset at or after `offset`, or nil when nothing is stored there.
    public func nextStored(from offset: Int) -> Int? {
        let i = firstIndex(endingAtOrAfter: offset + 1)
        guard i < ranges.count else { return nil }
        return Swift.max(ranges[i].lowerBound, offset)
    }

    /// The parts of `range` that are not in the set ("holes"), ascending.
    public func gaps(in range: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var cursor = range.lowerBound
        var i = firstIndex(endingAtOrAfter: range.lowerBound + 1)
        while cursor < range.upperBound {
            if i >= ranges.count || ranges[i].lowerBound >= range.upperBound {
                result.append(cursor..<range.upperBound)
                break
            }
            let r = ranges[i]
            if r.lowerBound > cursor { result.append(cursor..<r.lowerBound) }
            cursor = Swift.max(cursor, r.upperBound)
            i += 1
        }
        return result
    }

    /// The intersection of the set with `range`.
    public func intersection(_ range: Range<Int>) -> ByteRangeSet {
        var out = ByteRangeSet()
        for r in ranges where r.overlaps(range) { out.ranges.append(r.clamped(to: range)) }
        return out
    }
}
