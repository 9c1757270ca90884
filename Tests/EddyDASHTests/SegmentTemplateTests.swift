import EddyDASH
import XCTest

/// ISO/IEC 23009-1 sections 5.3.9.4 (templates) and 5.3.9.6 (timelines).
final class SegmentTemplateTests: XCTestCase {
    func test_fill_everyIdentifierAndWidth() {
        XCTAssertEqual(SegmentTemplate.fill("$RepresentationID$/$Number%05d$-$Bandwidth$-$Time$.m4s$$", id: "v1", number: 42,
                                            bandwidth: 800_000, time: 9000), "v1/00042-800000-9000.m4s$")
        XCTAssertEqual(SegmentTemplate.fill("seg-$Number$.m4s", id: "a", number: 7, bandwidth: nil, time: 0), "seg-7.m4s")
    }

    func test_fill_unknownIdentifierOrFormat_keptAsWritten() {
        XCTAssertEqual(SegmentTemplate.fill("$Foo$/$Number%x$", id: "a", number: 1, bandwidth: nil, time: 0), "$Foo$/$Number%x$")
        XCTAssertEqual(SegmentTemplate.fill("$Bandwidth$", id: "a", number: 1, bandwidth: nil, time: 0), "$Bandwidth$")
    }

    func test_expand_numberAndDuration_coversThePeriod() throws {
        var t = SegmentTemplate()
        (t.media, t.timescale, t.duration, t.startNumber) = ("s$Number$.m4s", 1000, 2000, 0)
        let s = try t.expand(representationID: "v", bandwidth: nil, periodDuration: 5)
        XCTAssertEqual(s.map(\.0), ["s0.m4s", "s1.m4s", "s2.m4s"])
        XCTAssertEqual(s.map(\.1), [0, 2, 4])
        XCTAssertEqual(s.map(\.2), [2, 2, 2])
    }

    func test_expand_numberWithoutPeriodDuration_listsNothing() throws {
        var t = SegmentTemplate()
        (t.media, t.duration) = ("s$Number$.m4s", 2)
        XCTAssertEqual(try t.expand(representationID: "v", bandwidth: nil, periodDuration: nil).count, 0)
    }

    func test_expand_timeline_repeatsAndTimes() throws {
        var t = SegmentTemplate()
        (t.media, t.timescale, t.startNumber) = ("t$Time$-n$Number$", 10, 1)
        t.timeline = [.init(t: 0, d: 20, r: 2), .init(d: 15)]
        let s = try t.expand(representationID: "v", bandwidth: nil, periodDuration: nil)
        XCTAssertEqual(s.map(\.0), ["t0-n1", "t20-n2", "t40-n3", "t60-n4"])
        XCTAssertEqual(s.map(\.2), [2, 2, 2, 1.5])
    }

    func test_expand_timelineRepeatUntilPeriodEnd() throws {
        var t = SegmentTemplate()
        (t.media, t.timescale) = ("$Time$", 1)
        t.timeline = [.init(t: 0, d: 2, r: -1)]
        XCTAssertEqual(try t.expand(representationID: "v", bandwidth: nil, periodDuration: 7).map(\.0), ["0", "2", "4", "6"])
        t.timeline = [.init(t: 0, d: 2, r: -1), .init(t: 6, d: 3)]
        XCTAssertEqual(try t.expand(representationID: "v", bandwidth: nil, periodDuration: nil).map(\.0), ["0", "2", "4", "6"])
    }

    func test_expand_presentationTimeOffset_startsAtZero() throws {
        var t = SegmentTemplate()
        (t.media, t.timescale, t.presentationTimeOffset) = ("$Time$", 10, 100)
        t.timeline = [.init(t: 100, d: 20, r: 1)]
        XCTAssertEqual(try t.expand(representationID: "v", bandwidth: nil, periodDuration: nil).map(\.1), [0, 2])
    }

    func test_expand_hostileCounts_areRefused() {
        var t = SegmentTemplate()
        (t.media, t.duration) = ("$Number$", 1)
        XCTAssertThrowsError(try t.expand(representationID: "v", bandwidth: nil, periodDuration: 365 * 86400)) {
            XCTAssertTrue("\($0)".contains("more than"), "\($0)")
        }
        t.timeline = [.init(t: 0, d: 1, r: 1_000_000_000)]
        XCTAssertThrowsError(try t.expand(representationID: "v", bandwidth: nil, periodDuration: nil))
        t.timeline = [.init(t: 0, d: 1, r: -1)]
        XCTAssertThrowsError(try t.expand(representationID: "v", bandwidth: nil, periodDuration: 1e9))
    }
}
