import EddyCore
import XCTest

/// The admin API's windows (issue 14) and Prometheus histograms, as values.
final class RollingStatsTests: XCTestCase {
    func test_windowsSumTheirMinutes_andOldMinutesAreForgotten() {
        var s = RollingStats()
        let t0 = 1_800_000_000 // a minute boundary
        s.record(now: t0, hit: true, bytesServed: 100, bytesFromCache: 100)
        s.record(now: t0 + 30, hit: false, bytesServed: 300, bytesFromCache: 0)
        s.record(now: t0 + 600, hit: true, bytesServed: 50, bytesFromCache: 40)
        let now = t0 + 610
        let five = s.totals(seconds: 300, now: now)
        XCTAssertEqual([five.requests, five.hits, five.bytesServed, five.bytesFromCache], [1, 1, 50, 40])
        let hour = s.totals(seconds: 3600, now: now)
        XCTAssertEqual([hour.requests, hour.hits, hour.bytesServed, hour.bytesFromCache], [3, 2, 450, 140])
        XCTAssertEqual(hour.hitRatio, 2.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(hour.byteHitRatio, 140.0 / 450, accuracy: 1e-9)
        let series = s.series(minutes: 60, now: now)
        XCTAssertEqual(series.count, 60)
        XCTAssertEqual(series.last?.minute, now / 60)
        XCTAssertEqual(series.map(\.requests).reduce(0, +), 3)
        // A day later the same ring slots hold nothing of then.
        let later = now + 86_400
        XCTAssertEqual(s.totals(seconds: 86_400, now: later).requests, 0, "nothing older than 24 h")
        XCTAssertEqual(s.totals(seconds: 86_400, now: later - 600).requests, 1, "the t0+600 minute is 24 h old then")
        XCTAssertEqual(s.totals(seconds: 300, now: later + 3600).requests, 0)
        s.record(now: later, hit: false, bytesServed: 1, bytesFromCache: 0)
        XCTAssertEqual(s.totals(seconds: 60, now: later).requests, 1, "a reused slot starts from zero")
        XCTAssertEqual(RollingStats.Counts().hitRatio, 0)
    }

    func test_histogramBucketsAreCumulative() {
        var h = Histogram(bounds: [0.01, 0.1, 1])
        for v in [0.005, 0.01, 0.05, 2, -1, .nan] { h.observe(v) }
        XCTAssertEqual(h.count, 6)
        XCTAssertEqual(h.sum, 2.065, accuracy: 1e-9)
        XCTAssertEqual(h.render("x_seconds", labels: "kind=\"hit\""), """
            x_seconds_bucket{kind="hit",le="0.01"} 4
            x_seconds_bucket{kind="hit",le="0.1"} 5
            x_seconds_bucket{kind="hit",le="1"} 5
            x_seconds_bucket{kind="hit",le="+Inf"} 6
            x_seconds_sum{kind="hit"} 2.065
            x_seconds_count{kind="hit"} 6

            """)
        XCTAssertTrue(Histogram().render("y").hasPrefix("y_bucket{le=\"0.001\"} 0\n"))
    }

    func test_histogramsOfSeveralLoopsAddUpToOneThatSawEverything() {
        var a = Histogram(bounds: [0.01, 0.1, 1]), b = a, all = a
        for v in [0.0078125, 0.5, 4] { a.observe(v); all.observe(v) } // sums exact in binary
        for v in [0.0625, 0.0625] { b.observe(v); all.observe(v) }
        a.add(b)
        XCTAssertEqual(a, all)
        var other = Histogram(bounds: [1, 2])
        other.observe(1)
        a.add(other) // different buckets: not added
        XCTAssertEqual(a, all)
    }
}
