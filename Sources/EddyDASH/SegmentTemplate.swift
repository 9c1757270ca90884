/// A SegmentTemplate (ISO/IEC 23009-1 section 5.3.9.4) with what it inherits from the levels
/// above, expanded into the segments it names: by `$Number$` and `@duration`, or by the
/// `SegmentTimeline` (section 5.3.9.6, `$Time$` or `$Number$`).
public struct SegmentTemplate: Equatable, Sendable {
    /// One `S` element: start time `t` (when written), duration `d`, repeat count `r` (-1: until
    /// the next S or the period's end).
    public struct Entry: Equatable, Sendable {
        public var t: Int?, d: Int, r: Int
        public init(t: Int? = nil, d: Int, r: Int = 0) { (self.t, self.d, self.r) = (t, d, r) }
    }

    public var media: String?
    public var initialization: String?
    public var startNumber = 1
    public var timescale = 1
    public var duration: Int?
    public var presentationTimeOffset = 0
    public var timeline: [Entry]?

    public init() {}

    /// The most segments one representation may list: an hour-long film in 2 s segments is 1,800,
    /// a day's recording in 1 s segments 86,400. A hostile `@duration` of 1 over a year would be
    /// 31 million.
    public static let maxSegments = 200_000

    /// The media URLs (templates filled, not yet resolved) with their start and duration in
    /// seconds from the period's start, for a period of `periodDuration` seconds (nil: unknown,
    /// as for a live period, when `$Number$` without a timeline lists nothing).
    public func expand(representationID id: String, bandwidth: Int?, periodDuration: Double?) throws -> [(String, Double, Double)] {
        guard let media, timescale > 0 else { return [] }
        let scale = Double(timescale)
        var out: [(String, Double, Double)] = []
        func add(number: Int, time: Int, d: Int) throws {
            guard out.count < SegmentTemplate.maxSegments else {
                throw MPDError("a SegmentTemplate would list more than \(SegmentTemplate.maxSegments) segments")
            }
            let url = SegmentTemplate.fill(media, id: id, number: number, bandwidth: bandwidth, time: time)
            out.append((url, Double(time - presentationTimeOffset) / scale, Double(d) / scale))
        }
        if let timeline {
            var time = 0, number = startNumber
            let end = periodDuration.map { presentationTimeOffset + Int(($0 * scale).rounded()) }
            for (i, s) in timeline.enumerated() where s.d > 0 {
                if let t = s.t { time = t }
                var repeats = s.r
                if repeats < 0 {
                    // Until the next S's start, else the period's end; unknown: this one only.
                    let until = timeline.dropFirst(i + 1).first?.t ?? end
                    repeats = until.map { Swift.max(0, ($0 - time + s.d - 1) / s.d - 1) } ?? 0
                }
                guard repeats < SegmentTemplate.maxSegments else {
                    throw MPDError("a SegmentTimeline would list more than \(SegmentTemplate.maxSegments) segments")
                }
                for _ in 0...repeats {
                    try add(number: number, time: time, d: s.d)
                    (time, number) = (time + s.d, number + 1)
                }
            }
            return out
        }
        guard let d = duration, d > 0, let periodDuration else { return [] }
        let count = Int((periodDuration * scale / Double(d)).rounded(.up))
        guard count <= SegmentTemplate.maxSegments else {
            throw MPDError("a SegmentTemplate would list \(count) segments, more than \(SegmentTemplate.maxSegments)")
        }
        for k in 0..<count { try add(number: startNumber + k, time: presentationTimeOffset + k * d, d: d) }
        return out
    }

    /// `template` with its identifiers replaced (section 5.3.9.4.4): `$RepresentationID$`,
    /// `$Number$`, `$Bandwidth$`, `$Time$`, each of the last three with an optional `%0Nd` width,
    /// and `$$` for a dollar sign. An identifier it does not know is kept as written.
    public static func fill(_ template: String, id: String, number: Int, bandwidth: Int?, time: Int) -> String {
        let parts = template.split(separator: "$", omittingEmptySubsequences: false)
        var out = ""
        for (i, part) in parts.enumerated() {
            guard i % 2 == 1, i < parts.count - 1 else { out += part; continue }
            if part.isEmpty { out += "$"; continue }
            let (name, format) = part.firstIndex(of: "%").map { (part[..<$0], part[$0...]) } ?? (part, "")
            let value: Int?
            switch name {
            case "RepresentationID" where format.isEmpty: out += id; continue
            case "Number": value = number
            case "Bandwidth": value = bandwidth
            case "Time": value = time
            default: value = nil
            }
            guard let value, let text = SegmentTemplate.formatted(value, format) else { out += "$\(part)$"; continue }
            out += text
        }
        return out
    }

    /// `%0Nd` (or nothing) applied to `value`; nil for any other format.
    static func formatted(_ value: Int, _ format: Substring) -> String? {
        if format.isEmpty { return String(value) }
        guard format.hasPrefix("%0"), format.hasSuffix("d"), let width = Int(format.dropFirst(2).dropLast()), width <= 32 else {
            return format == "%d" ? String(value) : nil
        }
        let digits = String(value)
        return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }
}
