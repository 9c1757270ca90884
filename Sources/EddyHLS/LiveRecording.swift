/// A live or EVENT media playlist recorded reload by reload, as a value: each reload's playlist
/// is merged in, its segments not seen before are kept (by Media Sequence Number, RFC 8216bis
/// section 6.2.2), and the recording is written out as one playlist: EVENT while it grows, VOD
/// with EXT-X-ENDLIST once it ended. No I/O and no clock; the download engine reloads, stores the
/// new segments and decides when a silent origin has stalled.
///
/// A sliding-window live playlist forgets its old segments; the recording keeps them all, so the
/// offline asset is the whole recording, not the last window. Segments that left the window
/// before a reload saw them are counted in `missed`, and a discontinuity is written where they were.
public struct LiveRecording: Sendable, Equatable {
    /// Why a recording stopped growing.
    public enum End: String, Codable, Sendable {
        /// The origin ended the presentation (EXT-X-ENDLIST).
        case endList = "endlist"
        /// The media duration asked for (`duration`) is recorded.
        case duration
        /// The origin stopped adding segments for too long (see `stallSeconds`).
        case stalled
        /// `MediaPlaylist.maxSegments` segments, or sequence numbers near 2^62: more is hostile.
        case segmentLimit = "segment-limit"
    }

    /// Everything but the segments: small, saved with the job.
    public struct Header: Codable, Equatable, Sendable {
        public var targetDuration = 0
        public var version: Int?
        public var independentSegments = false
        /// The Media Sequence Number the next new segment must have or exceed.
        public var nextSequence: Int?
        /// Segments that left the live window before a reload saw them.
        public var missed = 0
        /// Media seconds to record; nil: until EXT-X-ENDLIST.
        public var limit: Double?
        public var mediaSeconds = 0.0
        public var ended: End?
        /// A segment at the end was dropped (`drop`): the next one recorded starts after a gap.
        public var gapAtEnd: Bool?
        /// What is added to the origin's Media Sequence Numbers to number its segments in the
        /// recording, once it restarted its numbering (nil: nothing, it never did).
        public var sequenceOffset: Int?
        /// Times the origin restarted its numbering during the recording (nil: never).
        public var originRestarts: Int?

        public init(limit: Double? = nil) { self.limit = limit }
    }

    public private(set) var header: Header
    public private(set) var segments: [RecordedSegment]
    /// The first Media Sequence Number of the last reload, as the recording numbers it: segments
    /// before it are gone from the live window (nil until a reload in this run).
    public private(set) var windowStart: Int?
    /// The last Media Sequence Number of a reload that went back and named nothing recorded: an
    /// origin that restarted its numbering, or a stale copy. A later one that grew decides.
    private var restartSeen: Int?

    public init(limit: Double? = nil) {
        header = Header(limit: limit)
        segments = []
    }

    /// A recording read back (a header and its segments, in any order). The segments are the
    /// truth: they are saved before the header, so a header from before a crash may lag them.
    public init(header: Header, segments: [RecordedSegment]) {
        self.header = header
        var seen = Set<Int>()
        self.segments = segments.sorted { $0.sequence < $1.sequence }.filter { seen.insert($0.sequence).inserted }
        if let last = self.segments.last {
            self.header.nextSequence = max(header.nextSequence ?? 0, last.sequence &+ 1) // &+: a damaged row must not trap
            if let origin = last.originSequence { self.header.sequenceOffset = last.sequence &- origin }
        }
        self.header.mediaSeconds = self.segments.reduce(0) { $0 + $1.duration }
        if let limit = header.limit, self.header.mediaSeconds >= limit, header.ended == nil { self.header.ended = .duration }
    }

    public var hasEnded: Bool { header.ended != nil }

    /// Seconds without a new segment after which a live origin is taken to have stopped: ten
    /// target durations, and at least a minute. RFC 8216bis section 6.3.4 lets a client give up
    /// on a playlist that does not change; a recording ends instead, keeping what it has.
    public var stallSeconds: Double { max(60, 10 * Double(max(header.targetDuration, 1))) }

    /// Merges a reload of the playlist; returns the segments it added, in order. Nothing is added
    /// once the recording has ended, or from a multivariant playlist.
    @discardableResult
    public mutating func merge(_ playlist: HLSPlaylist) -> [RecordedSegment] {
        guard header.ended == nil else { return [] }
        var reload = LiveRecording.read(playlist)
        guard !reload.multivariant else { return [] }
        guard followsNumbering(&reload.segments) else { return [] }
        if let first = reload.segments.first?.sequence { windowStart = first }
        header.targetDuration = max(header.targetDuration, reload.targetDuration)
        if let v = reload.version { header.version = max(header.version ?? 0, v) }
        header.independentSegments = header.independentSegments || reload.independentSegments
        var fresh = reload.segments.filter { $0.sequence >= (header.nextSequence ?? Int.min) }
        if let next = header.nextSequence, let first = fresh.first, first.sequence > next {
            header.missed += first.sequence - next
            fresh[0].missedBefore = true
        }
        if header.gapAtEnd == true, !fresh.isEmpty {
            fresh[0].missedBefore = true
            header.gapAtEnd = nil
        }
        var added: [RecordedSegment] = []
        // In order of their numbers, each once, whatever the reload says.
        for s in fresh where s.sequence >= (header.nextSequence ?? Int.min) {
            guard segments.count < MediaPlaylist.maxSegments else {
                header.ended = .segmentLimit
                break
            }
            segments.append(s)
            added.append(s)
            header.nextSequence = s.sequence + 1
            header.mediaSeconds += s.duration
            if let limit = header.limit, header.mediaSeconds >= limit {
                header.ended = .duration
                break
            }
        }
        if reload.endList && header.ended == nil { header.ended = .endList }
        return added
    }

    /// Numbers the reload's segments as the recording does; false when the reload is to be
    /// ignored.
    ///
    /// RFC 8216bis section 6.2.2 forbids a server to decrease EXT-X-MEDIA-SEQUENCE, but a
    /// restarted encoder or packager often numbers from 0 again. Nothing in its reloads is then
    /// new by number, so the recording would stall and end with the rest of the event missing. A
    /// reload that goes back is also what a stale copy (a lagging CDN edge) looks like, so one is
    /// taken for a restart only when:
    /// - it names no recorded segment (compared without the query, which may carry a rotating
    ///   token): a stale copy repeats what was recorded, and new media under recorded URLs could
    ///   not be recorded beside them (that origin is left to end as stalled);
    /// - and the next reload, going back as well, has grown (a stale copy does not).
    /// The restarted numbering then continues the recording's, after a discontinuity.
    private mutating func followsNumbering(_ segments: inout [RecordedSegment]) -> Bool {
        let offset = header.sequenceOffset ?? 0
        if offset != 0 {
            for i in segments.indices {
                segments[i].originSequence = segments[i].sequence
                segments[i].sequence &+= offset
            }
        }
        // Section 4.3.3.2 allows numbers up to 2^64-1, but no stream reaches its 2^62nd segment:
        // numbers beyond that are hostile, and end the recording before any sum can overflow.
        guard segments.allSatisfy({ (0..<LiveRecording.maxSequence).contains($0.sequence) }) else {
            header.ended = .segmentLimit
            return false
        }
        guard let windowStart, let next = header.nextSequence, let first = segments.first, let last = segments.last,
              first.sequence < windowStart else {
            restartSeen = nil
            return true
        }
        let recorded = Set(self.segments.map(LiveRecording.path))
        guard !segments.contains(where: { recorded.contains(LiveRecording.path($0)) }) else { return false }
        guard let seen = restartSeen, last.sequence > seen else {
            restartSeen = max(restartSeen ?? last.sequence, last.sequence)
            return false
        }
        restartSeen = nil
        let shift = next &- first.sequence
        header.sequenceOffset = offset &+ shift
        header.originRestarts = (header.originRestarts ?? 0) + 1
        for i in segments.indices {
            segments[i].originSequence = segments[i].originSequence ?? segments[i].sequence
            segments[i].sequence &+= shift
        }
        segments[0].missedBefore = true
        return true
    }

    /// Recording numbers stay below this (see `followsNumbering`).
    static let maxSequence = 1 << 62

    /// A segment's URI without its query.
    private static func path(_ s: RecordedSegment) -> Substring {
        let uri = s.lines.last ?? ""
        return uri.prefix { $0 != "?" }
    }

    /// Forgets the segment `sequence`: the origin no longer has it (it left the live window before
    /// it could be fetched). It counts as missed, and a discontinuity is written where it was.
    /// False when it is not recorded.
    @discardableResult
    public mutating func drop(sequence: Int) -> Bool {
        guard let i = segments.firstIndex(where: { $0.sequence == sequence }) else { return false }
        let gone = segments.remove(at: i)
        header.missed += 1
        header.mediaSeconds = max(0, header.mediaSeconds - gone.duration)
        if i < segments.count { segments[i].missedBefore = true } else { header.gapAtEnd = true }
        return true
    }

    /// Stops the recording (the origin stalled); what it has is kept.
    public mutating func end(_ reason: End) {
        if header.ended == nil { header.ended = reason }
    }

    /// The recording as a media playlist: EVENT while it grows, VOD with EXT-X-ENDLIST once it
    /// ended. Key and map tags are written where they change; a discontinuity where segments were
    /// missed.
    public var text: String {
        var out = ["#EXTM3U"]
        if let v = header.version { out.append("#EXT-X-VERSION:\(v)") }
        let target = segments.reduce(header.targetDuration) { max($0, Int(min($1.duration, 1e9).rounded())) }
        out.append("#EXT-X-TARGETDURATION:\(target)")
        out.append("#EXT-X-MEDIA-SEQUENCE:\(segments.first?.sequence ?? header.nextSequence ?? 0)")
        if let ds = segments.first?.discontinuitySequence, ds > 0 { out.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(ds)") }
        out.append(hasEnded ? "#EXT-X-PLAYLIST-TYPE:VOD" : "#EXT-X-PLAYLIST-TYPE:EVENT")
        if header.independentSegments { out.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        var keys: [String] = [], map: String?
        for (i, s) in segments.enumerated() {
            if s.keys != keys {
                out += s.keys.isEmpty ? ["#EXT-X-KEY:METHOD=NONE"] : s.keys
                keys = s.keys
            }
            if let m = s.map, m != map {
                out.append(m)
                map = m
            }
            // A discontinuity before the first segment means nothing: its sequence number says it.
            var lines = i == 0 ? s.lines.filter { $0 != "#EXT-X-DISCONTINUITY" } : s.lines
            if i > 0 && s.missedBefore && !s.hasDiscontinuity { lines.insert("#EXT-X-DISCONTINUITY", at: 0) }
            out += lines
        }
        if hasEnded { out.append("#EXT-X-ENDLIST") }
        return out.joined(separator: "\n") + "\n"
    }
}
