import EddyDASH
import XCTest

/// Reading periods, representations and segments (ISO/IEC 23009-1 section 5.3).
final class MPDManifestTests: XCTestCase {
    private func resolve(_ ref: String, _ base: String) -> String? { TestResolution.resolve(ref, base) }

    private func manifest(_ xml: String) throws -> MPDManifest {
        try MPDDocument(Array(xml.utf8)).manifest(documentURL: "http://cdn.example/show/m.mpd", resolve: resolve)
    }

    func test_template_inheritedFromAdaptationSet_withBaseURLs() throws {
        let m = try manifest("""
        <MPD type="static" mediaPresentationDuration="PT6S"><BaseURL>http://media.example/a/</BaseURL><Period>
        <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
        <SegmentTemplate timescale="1000" duration="2000" startNumber="1" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>
        <Representation id="720" bandwidth="3000000" width="1280" height="720" frameRate="25"/>
        <Representation id="480" bandwidth="1000000" width="854" height="480"><BaseURL>low/</BaseURL></Representation>
        </AdaptationSet><AdaptationSet lang="fr" mimeType="audio/mp4"><ContentProtection schemeIdUri="urn:x"/>
        <SegmentTemplate timescale="48000" media="a-$Time$.m4s"><SegmentTimeline><S t="0" d="96000" r="2"/></SegmentTimeline></SegmentTemplate>
        <Representation id="fr" bandwidth="128000"/></AdaptationSet></Period></MPD>
        """)
        XCTAssertEqual(m.periods.count, 1)
        XCTAssertTrue(m.periods[0].isProtected)
        let reps = m.allRepresentations
        XCTAssertEqual(reps.map(\.id), ["720", "480", "fr"])
        XCTAssertEqual(reps[0].initialization?.url, "http://media.example/a/720/init.mp4")
        XCTAssertEqual(reps[0].segments.map(\.url), (1...3).map { "http://media.example/a/720/\($0).m4s" })
        XCTAssertEqual(reps[1].segments.first?.url, "http://media.example/a/low/480/1.m4s")
        XCTAssertEqual([reps[0].height, reps[0].bandwidth, reps[0].codecs.map { _ in 1 }], [720, 3_000_000, 1])
        XCTAssertEqual(reps[0].contentType, "video")
        XCTAssertEqual(reps[2].lang, "fr")
        XCTAssertEqual(reps[2].contentType, "audio")
        XCTAssertEqual(reps[2].segments.map(\.url), ["a-0.m4s", "a-96000.m4s", "a-192000.m4s"].map { "http://media.example/a/" + $0 })
    }

    func test_twoPeriods_startsAndDurationsChain() throws {
        let m = try manifest("""
        <MPD mediaPresentationDuration="PT10S"><Period id="1" duration="PT4S"><AdaptationSet>
        <SegmentTemplate duration="2" media="p1-$Number$"/><Representation id="v"/></AdaptationSet></Period>
        <Period id="2"><AdaptationSet><SegmentTemplate duration="3" media="p2-$Number$"/><Representation id="v"/></AdaptationSet></Period></MPD>
        """)
        XCTAssertEqual(m.periods.map(\.start), [0, 4])
        XCTAssertEqual(m.periods.map(\.duration), [4, 6])
        XCTAssertEqual(m.periods[1].representations[0].segments.map(\.start), [4, 7])
        XCTAssertEqual(m.periods[1].representations[0].segments.map(\.url).last, "http://cdn.example/show/p2-2")
    }

    func test_segmentList_withRanges_andSegmentBase() throws {
        let m = try manifest("""
        <MPD mediaPresentationDuration="PT4S"><Period><AdaptationSet>
        <Representation id="l"><BaseURL>one.mp4</BaseURL><SegmentList timescale="10" duration="20">
        <Initialization range="0-799"/><SegmentURL mediaRange="800-1999"/><SegmentURL mediaRange="2000-2999"/></SegmentList></Representation>
        <Representation id="b"><BaseURL>whole.mp4</BaseURL><SegmentBase indexRange="800-899"><Initialization range="0-799"/></SegmentBase></Representation>
        </AdaptationSet></Period></MPD>
        """)
        let l = m.allRepresentations[0], b = m.allRepresentations[1]
        XCTAssertEqual(l.initialization, MPDSegment(url: "http://cdn.example/show/one.mp4", byteRange: 0...799))
        XCTAssertEqual(l.segments.map(\.byteRange), [800...1999, 2000...2999])
        XCTAssertEqual(l.segments.map(\.start), [0, 2])
        XCTAssertEqual(b.segments, [MPDSegment(url: "http://cdn.example/show/whole.mp4", start: 0, duration: 4)])
    }

    func test_hostileTemplate_isRefusedWithAReason() {
        XCTAssertThrowsError(try manifest("""
        <MPD mediaPresentationDuration="P365D"><Period><AdaptationSet><SegmentTemplate duration="1" media="$Number$"/>
        <Representation id="v"/></AdaptationSet></Period></MPD>
        """)) { XCTAssertTrue("\($0)".contains("segments"), "\($0)") }
    }
}
