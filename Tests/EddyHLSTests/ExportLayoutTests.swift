import EddyCore
import XCTest
@testable import EddyHLS

/// Where an export puts each URL, and the playlists' relative URIs.
final class ExportLayoutTests: XCTestCase {
    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(Substring(s))! }

    func test_pathsUnderTheRootKeepTheirShape_othersGoUnderExt() {
        var l = ExportLayout(root: url("http://o/show/ep1/master.m3u8?token=abc"))
        XCTAssertEqual(l.path(for: url("http://o/show/ep1/master.m3u8?token=abc")), "master-\(ExportLayout.hash("token=abc")).m3u8")
        XCTAssertEqual(l.path(for: url("http://o/show/ep1/v0/seg1.m4s")), "v0/seg1.m4s")
        XCTAssertEqual(l.path(for: url("http://cdn.example:8080/x/seg1.m4s")), "_ext/cdn.example_8080/x/seg1.m4s")
        XCTAssertEqual(l.path(for: url("http://o/show/key.bin")), "_ext/o/show/key.bin", "outside the root's directory")
        XCTAssertEqual(l.path(for: url("https://o/show/ep1/v0/seg1.m4s")), "_ext/o/show/ep1/v0/seg1.m4s", "another origin")
    }

    func test_queriesMakeDistinctFiles_andCollisionsAreNumbered() {
        var l = ExportLayout(root: url("http://o/a/master.m3u8"))
        let one = l.path(for: url("http://o/a/seg.ts?n=1")), two = l.path(for: url("http://o/a/seg.ts?n=2"))
        XCTAssertNotEqual(one, two)
        XCTAssertTrue(one.hasSuffix(".ts") && two.hasSuffix(".ts"), "the extension stays last: players pick a demuxer by it")
        XCTAssertEqual(l.path(for: url("http://o/a/seg.ts?n=1")), one, "stable")
        XCTAssertEqual(l.path(for: url("http://o/a/s%20g.ts")), "s_20g.ts")
        XCTAssertEqual(l.path(for: url("http://o/a/s_20g.ts")), "s_20g-2.ts", "two URLs never share a file")
    }

    func test_hostilePathsStayInsideTheFolder() {
        var l = ExportLayout(root: url("http://o/a/master.m3u8"))
        for p in ["http://o/a/..%2f..%2fetc/passwd", "http://o/a/.../x", "http://o/a//x", "http://o/"] {
            let path = l.path(for: url(p))
            XCTAssertFalse(path.hasPrefix("/"), p)
            XCTAssertFalse(path.split(separator: "/").contains { $0 == ".." || $0 == "." || $0.isEmpty }, "\(p) -> \(path)")
        }
    }

    func test_relative() {
        XCTAssertEqual(ExportLayout.relative(from: "master.m3u8", to: "v0/index.m3u8"), "v0/index.m3u8")
        XCTAssertEqual(ExportLayout.relative(from: "v0/index.m3u8", to: "v0/seg1.m4s"), "seg1.m4s")
        XCTAssertEqual(ExportLayout.relative(from: "v0/index.m3u8", to: "keys/k.bin"), "../keys/k.bin")
        XCTAssertEqual(ExportLayout.relative(from: "a/b/i.m3u8", to: "a/c/s.ts"), "../c/s.ts")
        XCTAssertEqual(ExportLayout.relative(from: "a/i.m3u8", to: "a"), "../a")
    }

    func test_rewrite_onlyWhatIsExported_everythingElseAsWritten() {
        var l = ExportLayout(root: url("http://o/a/master.m3u8"))
        let media = HLSPlaylist("""
        #EXTM3U
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k?id=1",IV=0x1
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        /a/v0/seg1.m4s
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://drm-key",KEYFORMAT="com.apple.streamingkeydelivery"
        #EXTINF:4,
        seg2.m4s
        #EXT-X-ENDLIST

        """)
        let held: Set<String> = ["https://keys.example/k?id=1", "http://o/a/v0/init.mp4", "http://o/a/v0/seg1.m4s"]
        let text = l.rewrite(media, at: url("http://o/a/v0/index.m3u8"), exported: { held.contains($0.description) })
        let key = l.path(for: url("https://keys.example/k?id=1"))
        XCTAssertTrue(text.contains("URI=\"../\(key)\",IV=0x1"), text)
        XCTAssertTrue(text.contains("URI=\"init.mp4\""), text)
        XCTAssertTrue(text.contains("\nseg1.m4s\n"), text)
        XCTAssertTrue(text.contains("URI=\"skd://drm-key\""), "a DRM key stays as written")
        XCTAssertTrue(text.contains("\nseg2.m4s\n"), "not exported: unchanged")
    }
}
