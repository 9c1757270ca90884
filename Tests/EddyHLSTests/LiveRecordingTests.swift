import XCTest
@testable import EddyHLS

/// Live and EVENT recording (issue 13): reloads merged by Media Sequence Number into one playlist
/// that becomes VOD when the recording ends.
final class LiveRecordingTests: XCTestCase {
    /// A sliding window of `count` 2-second segments starting at `first`, with a key change at
    /// segment 4 and ENDLIST when asked.
    private func window(_ first: Int, _ count: Int, end: Bool = false) -> HLSPlaylist {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)",
                     "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"init.mp4\"",
                     "#EXT-X-PART-INF:PART-TARGET=0.5"]
        for n in first..<(first + count) {
            if n == first && n < 4 { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k1\"") }
            if n == 4 || (n == first && n > 4) { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k2\"") }
            lines += ["#EXT-X-PROGRAM-DATE-TIME:2026-11-23T10:00:\(String(format: "%02d", n * 2)).000Z", "#EXTINF:2.000,", "seg\(n).m4s"]
        }
        lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"seg\(first + count).part0.m4s\"")
        if end { lines.append("#EXT-X-ENDLIST") }
        return HLSPlaylist(lines.joined(separator: "\n") + "\n")
    }

    func test_reloadsAddOnlyNewSegments_andTheEndedRecordingIsVOD() {
        var r = LiveRecording()
        XCTAssertEqual(r.merge(window(0, 3)).map(\.sequence), [0, 1, 2])
        XCTAssertEqual(r.merge(window(0, 3)).count, 0, "an unchanged reload adds nothing")
        XCTAssertEqual(r.merge(window(1, 3)).map(\.sequence), [3])
        XCTAssertEqual(r.merge(window(3, 3)).map(\.sequence), [4, 5])
        XCTAssertFalse(r.hasEnded)
        XCTAssertTrue(r.text.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && !r.text.contains("ENDLIST"))
        XCTAssertEqual(r.merge(window(4, 3, end: true)).map(\.sequence), [6])
        XCTAssertEqual(r.header.ended, .endList)
        XCTAssertEqual(r.merge(window(5, 3)).count, 0, "nothing after the end")
        let text = r.text
        let media = MediaPlaylist(text)
        XCTAssertEqual(media.segments.map(\.uri), (0...6).map { "seg\($0).m4s" })
        XCTAssertTrue(media.endList)
        XCTAssertEqual(HLSPlaylist(text).kind, .vod)
        XCTAssertEqual(media.duration, 14, accuracy: 0.001)
        XCTAssertEqual(media.segments.map(\.keyURI), ["k1", "k1", "k1", "k1", "k2", "k2", "k2"])
        XCTAssertEqual(Set(media.segments.compactMap(\.mapURI)), ["init.mp4"])
        XCTAssertTrue(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-INDEPENDENT-SEGMENTS\n"), text)
        XCTAssertEqual(text.components(separatedBy: "#EXT-X-KEY").count - 1, 2, "a key tag where the key changes, not per segment")
        XCTAssertEqual(text.components(separatedBy: "#EXT-X-PROGRAM-DATE-TIME").count - 1, 7, "each segment keeps its own tags")
        XCTAssertFalse(text.contains("PRELOAD-HINT") || text.contains("PART-INF"), "no LL-HLS tags in a VOD")
        XCTAssertEqual(r.header.missed, 0)
    }

    func test_segmentsThatLeftTheWindowUnseen_areCountedAndMarkedWithADiscontinuity() {
        var r = LiveRecording()
        r.merge(window(0, 3))
        XCTAssertEqual(r.merge(window(7, 3)).map(\.sequence), [7, 8, 9])
        XCTAssertEqual(r.header.missed, 4)
        let lines = r.text.split(separator: "\n")
        let i = lines.firstIndex(of: "seg7.m4s")!
        XCTAssertTrue(lines[..<i].suffix(5).contains("#EXT-X-DISCONTINUITY"), "a discontinuity before the jump")
        XCTAssertEqual(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count, 1)
        // The key in effect is written again after the jump, though the reload wrote it once.
        XCTAssertEqual(MediaPlaylist(r.text).segments.last?.keyURI, "k2")
    }

    func test_aSegmentGoneFromTheOrigin_isDroppedAndMarkedAsAGap() {
        var r = LiveRecording()
        r.merge(window(0, 3))
        XCTAssertEqual(r.windowStart, 0)
        r.merge(window(2, 3))
        XCTAssertEqual(r.windowStart, 2)
        XCTAssertTrue(r.drop(sequence: 1))
        XCTAssertFalse(r.drop(sequence: 1), "once")
        XCTAssertEqual(r.header.missed, 1)
        XCTAssertEqual(r.header.mediaSeconds, 8, accuracy: 0.001)
        let lines = r.text.split(separator: "\n")
        XCTAssertFalse(lines.contains("seg1.m4s"))
        let i = lines.firstIndex(of: "seg2.m4s")!
        XCTAssertTrue(lines[..<i].suffix(4).contains("#EXT-X-DISCONTINUITY"))
        // The last one dropped: the next recorded segment carries the gap.
        XCTAssertTrue(r.drop(sequence: 4))
        r.merge(window(4, 3))
        XCTAssertEqual(r.segments.map(\.sequence), [0, 2, 3, 5, 6])
        XCTAssertTrue(r.segments[3].missedBefore)
        XCTAssertEqual(MediaPlaylist(r.text).segments.count, 5)
    }

    func test_aDurationEndsTheRecording_withTheSegmentThatCrossesIt() {
        var r = LiveRecording(limit: 5)
        XCTAssertEqual(r.merge(window(0, 2)).count, 2)
        XCTAssertNil(r.header.ended)
        XCTAssertEqual(r.merge(window(0, 5)).map(\.sequence), [2], "4 s + 2 s reaches 5 s")
        XCTAssertEqual(r.header.ended, .duration)
        XCTAssertEqual(r.header.mediaSeconds, 6, accuracy: 0.001)
        XCTAssertTrue(r.text.hasSuffix("#EXT-X-ENDLIST\n"))
    }

    func test_stalledEnd_multivariantAndHostileInput() {
        var r = LiveRecording()
        r.merge(window(0, 2))
        XCTAssertEqual(r.stallSeconds, 60, "at least a minute")
        r.end(.stalled)
        XCTAssertEqual(r.header.ended, .stalled)
        r.end(.endList)
        XCTAssertEqual(r.header.ended, .stalled, "the first reason stays")
        var m = LiveRecording()
        XCTAssertEqual(m.merge(HLSPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")).count, 0)
        var h = LiveRecording()
        let hostile = HLSPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999999\n#EXT-X-MEDIA-SEQUENCE:999999999999999999\n#EXTINF:99999999999999999999999999999.0,\na.ts\n#EXTINF:1,\nb.ts\n")
        XCTAssertEqual(h.merge(hostile).map(\.sequence), [999_999_999_999_999_999, 1_000_000_000_000_000_000])
        XCTAssertTrue(h.text.contains("#EXT-X-MEDIA-SEQUENCE:999999999999999999"), "no overflow, no crash")
    }

    func test_aRecordingReadBack_goesOnWhereItWas() {
        var r = LiveRecording(limit: 100)
        r.merge(window(0, 3))
        var back = LiveRecording(header: r.header, segments: r.segments.reversed())
        XCTAssertEqual(back.segments, r.segments, "segments are put back in order")
        XCTAssertEqual(back.header, r.header)
        XCTAssertNil(back.windowStart, "the window is known again at the next reload")
        XCTAssertEqual(back.merge(window(2, 3)).map(\.sequence), [3, 4])
        let data = try! JSONEncoder().encode(r.segments[0])
        XCTAssertEqual(try! JSONDecoder().decode(RecordedSegment.self, from: data), r.segments[0])
    }

    /// A live playlist numbered from `first`, of 2-second segments with these URIs.
    private func playlist(_ first: Int, _ uris: [String]) -> HLSPlaylist {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)",
                     "#EXT-X-MAP:URI=\"init.mp4\""]
        for uri in uris { lines += ["#EXTINF:2.000,", uri] }
        return HLSPlaylist(lines.joined(separator: "\n") + "\n")
    }

    /// `count` segments named `<prefix><n>.m4s<query>`, numbered from `first`.
    private func named(_ prefix: String, _ first: Int, _ count: Int, query: String = "") -> HLSPlaylist {
        playlist(first, (first..<(first + count)).map { "\(prefix)\($0).m4s\(query)" })
    }

    func test_anOriginThatRestartsItsNumbering_isFollowedAfterADiscontinuity() {
        var r = LiveRecording()
        r.merge(named("a", 10, 3))
        XCTAssertEqual(r.merge(named("a", 11, 3)).map(\.sequence), [13])
        XCTAssertEqual(r.merge(named("b", 0, 2)).count, 0, "one reload that goes back proves nothing")
        XCTAssertEqual(r.merge(named("b", 0, 2)).count, 0, "nor a second one that has not grown")
        let added = r.merge(named("b", 0, 3))
        XCTAssertEqual(added.map(\.sequence), [14, 15, 16], "the new numbering continues the recording's")
        XCTAssertEqual(added.map { $0.lines.last }, ["b0.m4s", "b1.m4s", "b2.m4s"])
        XCTAssertEqual(added.map(\.originSequence), [0, 1, 2])
        XCTAssertEqual(r.header.originRestarts, 1)
        XCTAssertEqual(r.merge(named("b", 1, 3)).map(\.sequence), [17], "later reloads are read in the new numbering")
        XCTAssertEqual(r.header.missed, 0)
        let text = r.text
        XCTAssertEqual(MediaPlaylist(text).segments.map(\.uri), ["a10", "a11", "a12", "a13", "b0", "b1", "b2", "b3"].map { $0 + ".m4s" })
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0 == "#EXT-X-DISCONTINUITY" }.count, 1)
        XCTAssertEqual(lines[lines.firstIndex(of: "b0.m4s")! - 2], "#EXT-X-DISCONTINUITY", "the discontinuity is where the origin restarted")
        // Read back with a header from before the restart (a kill -9 between the two saves): the
        // segments carry the numbering, so the recording goes on in it.
        var back = LiveRecording(header: LiveRecording.Header(), segments: r.segments)
        XCTAssertEqual(back.header.sequenceOffset, 14)
        XCTAssertEqual(back.merge(named("b", 2, 3)).map { $0.lines.last }, ["b4.m4s"])
        XCTAssertEqual(back.segments.last?.sequence, 18)
    }

    func test_aStaleCopy_orOneThatNamesRecordedSegments_isNotARestart() {
        var r = LiveRecording()
        r.merge(named("a", 10, 3))
        r.merge(named("a", 12, 3))
        // A lagging edge serves older windows, with rotated tokens: recorded segments, not new ones.
        XCTAssertEqual(r.merge(named("a", 10, 3, query: "?t=1")).count, 0)
        XCTAssertEqual(r.merge(named("a", 11, 3, query: "?t=2")).count, 0, "it grew, but names what is recorded")
        XCTAssertEqual(r.merge(named("a", 13, 3)).map(\.sequence), [15])
        // One copy older than the recording, then the origin as before: no restart either.
        XCTAssertEqual(r.merge(named("a", 5, 3)).count, 0)
        XCTAssertEqual(r.merge(named("a", 14, 3)).map(\.sequence), [16])
        // An origin restarting with the names it used before (new media under recorded URLs) can not
        // be recorded beside them: nothing is taken from it, however it grows.
        XCTAssertEqual(r.merge(playlist(0, ["a14.m4s", "a15.m4s"])).count, 0)
        XCTAssertEqual(r.merge(playlist(0, ["a14.m4s", "a15.m4s", "a16.m4s"])).count, 0)
        XCTAssertNil(r.header.originRestarts)
        XCTAssertNil(r.header.sequenceOffset)
        XCTAssertEqual(r.segments.map(\.sequence), Array(10...16))
        XCTAssertTrue(r.segments.allSatisfy { $0.originSequence == nil })
    }

    func test_hostileSequenceNumbers_endTheRecordingAndNeverTrap() {
        // Numbers are read up to 18 digits (just under 10^18), but an origin alternating jumps to
        // the largest of them with restarts to 0 adds about 10^18 to the recording's numbers per
        // round: without a bound they would overflow after nine rounds.
        var r = LiveRecording()
        r.merge(named("a", 0, 2))
        for k in 0..<12 where !r.hasEnded {
            r.merge(playlist(999_999_999_999_999_990, ["j\(k)a.m4s", "j\(k)b.m4s"]))
            r.merge(playlist(0, ["r\(k)a.m4s"]))
            r.merge(playlist(0, ["r\(k)a.m4s", "r\(k)b.m4s"]))
        }
        XCTAssertEqual(r.header.ended, .segmentLimit)
        XCTAssertGreaterThanOrEqual(r.header.originRestarts ?? 0, 3, "the rounds were taken as restarts")
        XCTAssertTrue(r.segments.allSatisfy { $0.sequence >= 0 && $0.sequence < 1 << 62 })
        XCTAssertTrue(r.header.missed > 0 && r.header.missed < 1 << 62)
        XCTAssertEqual(r.segments.prefix(2).map { $0.lines.last }, ["a0.m4s", "a1.m4s"], "what was recorded is kept")
    }

    func test_aSequenceTagAfterTheFirstSegment_doesNotNumberBackwards() {
        // Found by FuzzPlaylist: a second EXT-X-MEDIA-SEQUENCE numbered the rest from 0 again.
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:3080\n#EXTINF:2,\na.ts\n" +
            "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-DISCONTINUITY-SEQUENCE:5\n#EXTINF:2,\nb.ts\n#EXTINF:2,\nc.ts\n"
        var r = LiveRecording()
        XCTAssertEqual(r.merge(HLSPlaylist(text)).map(\.sequence), [3080, 3081, 3082])
        XCTAssertEqual(r.segments.map(\.discontinuitySequence), [0, 0, 0])
    }
}
