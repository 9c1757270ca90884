/// A Prometheus histogram as a value: cumulative buckets by upper bound (seconds), a sum and a
/// count, rendered in the text exposition format (`_bucket{le=...}`, `_sum`, `_count`).
public struct Histogram: Equatable, Sendable {
    /// Upper bounds, ascending; +Inf is implicit.
    public let bounds: [Double]
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0
    public private(set) var count = 0

    /// From 1 ms to 30 s: a cache hit's first byte to a slow origin's whole fill.
    public static let latencyBounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    public init(bounds: [Double] = Histogram.latencyBounds) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    /// Records one observation (negative or non-finite values count as 0).
    public mutating func observe(_ seconds: Double) {
        let v = seconds.isFinite ? Swift.max(0, seconds) : 0
        if let i = bounds.firstIndex(where: { v <= $0 }) { counts[i] += 1 }
        sum += v
        count += 1
    }

    /// Adds `other`'s observations (the same bounds), as if they had been observed here: for
    /// summing the histograms of several event loops.
    public mutating func add(_ other: Histogram) {
        guard other.bounds == bounds else { return }
        for i in counts.indices { counts[i] += other.counts[i] }
        sum += other.sum
        count += other.count
    }

    /// The series of `name`, with `labels` (`kind="hit"`) on every line.
    public func render(_ name: String, labels: String = "") -> String {
        let sep = labels.isEmpty ? "" : ","
        var out = "", cumulative = 0
        for (b, c) in zip(bounds, counts) {
            cumulative += c
            out += "\(name)_bucket{\(labels)\(sep)le=\"\(Histogram.format(b))\"} \(cumulative)\n"
        }
        out += "\(name)_bucket{\(labels)\(sep)le=\"+Inf\"} \(count)\n"
        let l = labels.isEmpty ? "" : "{\(labels)}"
        out += "\(name)_sum\(l) \(sum)\n\(name)_count\(l) \(count)\n"
        return out
    }

    static func format(_ b: Double) -> String {
        b == b.rounded() ? String(Int(b)) : String(b)
    }
}
