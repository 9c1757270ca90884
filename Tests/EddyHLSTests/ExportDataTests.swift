import EddyCore
import XCTest
@testable import EddyHLS

/// The files an export lists: each once, whatever names it again (issue 28: an fMP4 rendition's
/// init section and a key were listed once per segment, so the CLI counted 176 files for 97).
final class ExportDataTests: XCTestCase {
    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(Substring(s))! }
    private func media(_ s: String) -> MediaPlaylist { MediaPlaylist(HLSPlaylist(s)) }

    func test_anInitSectionAndAKeyNamedBeforeEverySegmentAreListedOnce() {
        let p = media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="init.mp4"
        #EXT-X-KEY:METHOD=AES-128,URI="k.bin"
        #EXTINF:2,
        seg0.m4s
        #EXTINF:2,
        seg1.m4s
        #EXTINF:2,
        seg2.m4s
        #EXT-X-ENDLIST
        """)
        let d = ExportData(media: [(url("http://o/v/index.m3u8"), p)])
        XCTAssertEqual(d.files.map(\.url.pathAndQuery), ["/v/seg0.m4s", "/v/init.mp4", "/v/k.bin", "/v/seg1.m4s", "/v/seg2.m4s"])
        XCTAssertEqual(d.files.filter(\.isKey).map(\.url.pathAndQuery), ["/v/k.bin"])
        XCTAssertTrue(d.files.allSatisfy { $0.ranges == nil })
    }

    func test_twoRenditionsSharingAPlaylistListItsFilesOnce() {
        let p = media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n#EXT-X-ENDLIST\n")
        let u = url("http://o/v/index.m3u8")
        XCTAssertEqual(ExportData(media: [(u, p), (u, p)]).files.count, 2)
    }

    func test_byteRangesAreKeptDistinct_andAWholeUseWins() {
        let p = media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="all.mp4",BYTERANGE="100@0"
        #EXTINF:2,
        #EXT-X-BYTERANGE:500@100
        all.mp4
        #EXTINF:2,
        #EXT-X-BYTERANGE:500@600
        all.mp4
        #EXT-X-ENDLIST
        """)
        let base = url("http://o/v/index.m3u8")
        var d = ExportData(media: [(base, p)])
        XCTAssertEqual(d.files.count, 1)
        XCTAssertEqual(d.files[0].ranges, [100..<600, 0..<100, 600..<1100], "the init range once, not once per segment")
        d.use("all.mp4", nil, against: base)
        XCTAssertNil(d.files[0].ranges, "one playlist uses all of it")
        d.use("all.mp4", 0..<10, against: base)
        XCTAssertNil(d.files[0].ranges, "whole stays whole")
    }

    func test_unresolvableURIsAndGapsAreLeftOut() {
        let p = media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-GAP\ngap.ts\n#EXTINF:2,\nok.ts\n#EXT-X-ENDLIST\n")
        XCTAssertEqual(ExportData(media: [(url("http://o/v/index.m3u8"), p)]).files.map(\.url.pathAndQuery), ["/v/ok.ts"])
    }
}
