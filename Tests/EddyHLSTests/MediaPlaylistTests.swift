import EddyHLS
import Foundation
import XCTest

final class MediaPlaylistTests: XCTestCase {
    func corpus(_ name: String) throws -> MediaPlaylist {
        MediaPlaylist(try String(contentsOf: HLSPlaylistTests.corpus.appendingPathComponent(name), encoding: .utf8))
    }

    func test_byteRanges_withAndWithoutOffsets_resolveAndSumExactly() throws {
        let p = try corpus("media-playlist-with-byterange.m3u8")
        XCTAssertEqual(p.segments.count, 3)
        XCTAssertEqual(p.segments.map(\.byteRange), [0..<75232, 752321..<(752321 + 82112), (752321 + 82112)..<(752321 + 82112 + 69864)])
        XCTAssertEqual(p.exactBytes, 75232 + 82112 + 69864)
        XCTAssertEqual(p.duration, 30, accuracy: 1e-9)
    }

    func test_keysMapsAndGaps_applyToTheSegmentsAfterThem() throws {
        let k = try corpus("media-playlist-with-key.m3u8")
        XCTAssertEqual(k.segments.first?.keyMethod, "AES-128")
        XCTAssertTrue(k.segments.first?.keyURI?.hasPrefix("http://192.168.99.153:12345/verimatrix-key/") == true)
        XCTAssertNil(k.exactBytes, "no byte ranges: the origin's lengths are needed")
        let m = try corpus("media-playlist-with-maps.m3u8")
        XCTAssertEqual(m.segments.first?.mapURI, "https://example.com/content-init.mp4")
        XCTAssertEqual(m.segments.first?.mapByteRange, 1048576..<(1048576 + 1024000))
        let g = try corpus("media-playlist-with-gap.m3u8")
        XCTAssertEqual(g.segments.filter(\.isGap).count, 1)
    }

    func test_aMapByteRangeWithoutOffset_startsAtZero_andWhitespaceAroundPartsIsIgnored() {
        let p = MediaPlaylist("#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"720\"\n#EXTINF:4,\n#EXT-X-BYTERANGE: 100 @ 720 \ns.mp4\n")
        XCTAssertEqual(p.segments.first?.mapByteRange, 0..<720)
        XCTAssertEqual(p.segments.first?.byteRange, 720..<820)
        XCTAssertEqual(p.exactBytes, 820)
    }

    func test_largeCorpusPlaylist_durationIsTheSumOfEXTINF() throws {
        let p = try corpus("media-playlist-large.m3u8")
        XCTAssertEqual(p.segments.count, 40001)
        XCTAssertGreaterThan(p.duration, 0)
        XCTAssertTrue(p.endList || p.targetDuration != nil)
    }

    func test_everyCorpusPlaylist_readsWithoutSurprises() throws {
        for f in try FileManager.default.contentsOfDirectory(at: HLSPlaylistTests.corpus, includingPropertiesForKeys: nil)
            where f.pathExtension == "m3u8" {
            let text = try String(contentsOf: f, encoding: .utf8)
            let m = MultivariantPlaylist(text), p = MediaPlaylist(text)
            // A playlist is one kind or the other: never both variants and segments.
            XCTAssertTrue(m.variants.isEmpty || p.segments.isEmpty, f.lastPathComponent)
            for v in m.variants { XCTAssertGreaterThan(v.bandwidth, 0, f.lastPathComponent) }
            for s in p.segments { XCTAssertGreaterThanOrEqual(s.duration, 0, f.lastPathComponent) }
        }
    }

    func test_hostile_manyVariantsAndOverflowingRanges_areBounded() {
        let many = "#EXTM3U\n" + String(repeating: "#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", count: 5000)
        XCTAssertEqual(MultivariantPlaylist(many).variants.count, MultivariantPlaylist.maxEntries)
        let p = MediaPlaylist("#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:9223372036854775807@9223372036854775807\na.ts\n#EXTINF:x,\nb.ts\n")
        XCTAssertEqual(p.segments.count, 2)
        XCTAssertNil(p.segments[0].byteRange)
        XCTAssertEqual(p.segments[1].duration, 0)
    }
}
