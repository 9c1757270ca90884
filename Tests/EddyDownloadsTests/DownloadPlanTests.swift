import EddyCore
import EddyHLS
@testable import EddyDownloads
import XCTest

final class DownloadPlanTests: XCTestCase {
    let base = UpstreamURL.parse("http://o.example/a/master.m3u8")!

    func test_unitsOncePerURLAndRangeInMediaTimeOrder() {
        let video = MediaPlaylist("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:2,\nv0.m4s\n#EXTINF:2,\nv1.m4s\n#EXT-X-ENDLIST\n")
        let audio = MediaPlaylist("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"../k.bin\"\n#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\nall.ts\n#EXTINF:2,\n#EXT-X-BYTERANGE:50\nall.ts\n#EXT-X-ENDLIST\n")
        let v = URIReference.resolve("v/index.m3u8", against: base)!, a = URIReference.resolve("au/index.m3u8", against: base)!
        let plan = DownloadPlan.build(url: base, playlist: MultivariantPlaylist("#EXTM3U\n"),
                                      selection: [SelectedRendition(type: .video, uri: "v/index.m3u8", variantIndex: 0),
                                                  SelectedRendition(type: .audio, uri: "au/index.m3u8", language: "en")],
                                      media: [v: video, a: audio])
        // Maps and keys come before the segments that need them; segments interleave by time.
        let order = plan.units.map { "\($0.kind.rawValue) \($0.url.pathAndQuery)\($0.range.map { " \($0)" } ?? "")" }
        XCTAssertEqual(order, [
            "playlist /a/master.m3u8", "playlist /a/v/index.m3u8", "map /a/v/init.mp4", "playlist /a/au/index.m3u8", "key /a/k.bin",
            "segment /a/v/v0.m4s", "segment /a/au/all.ts 0..<100", "segment /a/v/v1.m4s", "segment /a/au/all.ts 100..<150",
        ])
        XCTAssertEqual(plan.renditions.map(\.segments), [2, 2])
        XCTAssertEqual(plan.renditions.map(\.mediaSeconds), [4, 4])
    }

    func test_specErrorsNameTheFieldAndPosition() {
        XCTAssertThrowsError(try DownloadSpec(url: "x", variant: "height <= ").configurations()) { e in
            XCTAssertTrue("\(e)".contains("variant:") && "\(e)".contains("position"), "\(e)")
        }
        XCTAssertThrowsError(try DownloadSpec(url: "x", auxiliary: [.init(audio: ["channels:x"])]).configurations()) { e in
            XCTAssertTrue("\(e)".contains("auxiliary[0].audio"), "\(e)")
        }
        XCTAssertNoThrow(try DownloadSpec(url: "x", variant: "height <= 720 lowest", audio: ["all"], subtitles: ["none"]).configurations())
    }
}
