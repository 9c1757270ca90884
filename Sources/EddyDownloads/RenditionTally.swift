/// One rendition's progress sums (or those of the units without a rendition), kept as its units
/// are stored, lost or dropped, so that a job's progress costs O(renditions), not O(units)
/// (issue 59). Dropped units (live segments gone from the origin) count nowhere.
struct RenditionTally: Equatable {
    /// Units not stored, the lengths known of them, how many have none, and the media seconds of
    /// the segments among those (their bytes are estimated).
    var pending = 0
    var pendingExactBytes = 0
    var pendingInexact = 0
    var pendingEstimatedSeconds = 0.0
    /// Bytes of the units stored, and of the segments among them (for the estimate).
    var doneBytes = 0
    var doneSegmentBytes = 0
    var segmentsTotal = 0
    var segmentsDone = 0
    var mediaSecondsTotal = 0.0
    var mediaSecondsDone = 0.0
    /// Media time ranges whose segments are stored, sorted and merged, [start, end] seconds;
    /// `loadedStale` when a unit was lost since (they are made again from the units).
    var loaded: [[Double]] = []
    var loadedStale = false

    /// A unit joins, not stored.
    mutating func addPending(_ f: UnitFacts) {
        count(f, in: 1)
        if f.isSegment {
            segmentsTotal += 1
            mediaSecondsTotal += f.duration
        }
    }

    /// A pending unit is dropped: it counts nowhere.
    mutating func dropPending(_ f: UnitFacts) {
        count(f, in: -1)
        if f.isSegment {
            segmentsTotal -= 1
            mediaSecondsTotal -= f.duration
        }
    }

    /// A pending unit is stored, `bytes` long.
    mutating func store(_ f: UnitFacts, bytes: Int) {
        count(f, in: -1)
        doneBytes += bytes
        guard f.isSegment else { return }
        doneSegmentBytes += bytes
        segmentsDone += 1
        mediaSecondsDone += f.duration
        if !loadedStale { RenditionTally.insert(f.start, f.start + f.duration, into: &loaded) }
    }

    /// A stored unit of `bytes` is pending again (evicted or damaged).
    mutating func lose(_ f: UnitFacts, bytes: Int) {
        count(f, in: 1)
        doneBytes -= bytes
        guard f.isSegment else { return }
        doneSegmentBytes -= bytes
        segmentsDone -= 1
        mediaSecondsDone -= f.duration
        loadedStale = true
    }

    private mutating func count(_ f: UnitFacts, in sign: Int) {
        pending += sign
        if let n = f.exactBytes {
            pendingExactBytes += sign * n
        } else {
            pendingInexact += sign
            if f.isSegment && f.rendition != nil { pendingEstimatedSeconds += Double(sign) * f.duration }
        }
    }

    /// Bytes a second of media, from what is stored (else nil).
    var bytesPerSecond: Double? { mediaSecondsDone > 0 ? Double(doneSegmentBytes) / mediaSecondsDone : nil }

    /// Adds [start, end] to sorted, merged `ranges`, joining neighbours that touch (within 1 ms,
    /// as EXTINF durations are rounded).
    static func insert(_ start: Double, _ end: Double, into ranges: inout [[Double]]) {
        // The first range that ends at or after `start` (less the tolerance): binary search.
        var lo = 0, hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid][1] < start - 0.001 { lo = mid + 1 } else { hi = mid }
        }
        var s = start, e = end, last = lo
        while last < ranges.count && ranges[last][0] <= end + 0.001 {
            s = Swift.min(s, ranges[last][0])
            e = Swift.max(e, ranges[last][1])
            last += 1
        }
        ranges.replaceSubrange(lo..<last, with: [[s, e]])
    }
}
