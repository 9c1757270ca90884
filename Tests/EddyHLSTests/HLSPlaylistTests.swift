import EddyCore
import EddyHLS
import Foundation
import XCTest

final class HLSPlaylistTests: XCTestCase {
    /// The shared corpus: $EDDY_HLS_CORPUS, or shared/corpus/hls-playlists beside the checkout
    /// (where the workplace and CI put it), or inside it.
    static let corpus: URL = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        var candidates = [root.appendingPathComponent("../shared/corpus/hls-playlists").standardized,
                          root.appendingPathComponent("shared/corpus/hls-playlists"),
                          URL(fileURLWithPath: "/work/shared/corpus/hls-playlists")]
        if let env = ProcessInfo.processInfo.environment["EDDY_HLS_CORPUS"] { candidates.insert(URL(fileURLWithPath: env), at: 0) }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }()

    func corpusFiles() throws -> [URL] {
        let files = try FileManager.default.contentsOfDirectory(at: Self.corpus, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "m3u8" }
        XCTAssertGreaterThan(files.count, 30, "the shared corpus is missing")
        return files
    }

    func test_parseThenText_everyCorpusPlaylist_isByteIdentical() throws {
        for f in try corpusFiles() {
            let text = try String(contentsOf: f, encoding: .utf8)
            XCTAssertEqual(HLSPlaylist(text).text, text, f.lastPathComponent)
        }
    }

    func test_text_mixedLineEndingsAndNoFinalNewline_areKept() {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r#EXTINF:4,\nseg.ts"
        XCTAssertEqual(HLSPlaylist(text).text, text)
    }

    /// Every corpus playlist rewritten with a marker: all bytes outside URIs are unchanged, and every
    /// rewritten URI is the original one behind the marker.
    func test_rewriteURIs_corpus_keepsEveryNonURIByte() throws {
        for f in try corpusFiles() {
            let text = try String(contentsOf: f, encoding: .utf8)
            var p = HLSPlaylist(text)
            var originals: [String] = []
            p.rewriteURIs { uri in originals.append(uri); return "@@" + uri + "@@" }
            let out = p.text
            let restored = out.replacingOccurrences(of: "@@", with: "")
            if restored != text {
                let a = restored.split(separator: "\n", omittingEmptySubsequences: false)
                let b = text.split(separator: "\n", omittingEmptySubsequences: false)
                let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                XCTFail("\(f.lastPathComponent) line \(i): \(i < a.count ? String(a[i]) : "<end>") != \(i < b.count ? String(b[i]) : "<end>")")
            }
            XCTAssertEqual(out.components(separatedBy: "@@").count - 1, originals.count * 2, f.lastPathComponent)
        }
    }

    func test_rewriteURIs_allURIAttributeTags_areRewritten() {
        let text = """
        #EXTM3U
        #EXT-X-CONTENT-STEERING:SERVER-URI="steer.json",PATHWAY-ID="A"
        #EXT-X-SESSION-KEY:METHOD=AES-128,URI="k0.key"
        #EXT-X-SESSION-DATA:DATA-ID="x",URI="data.json"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en, \\"main\\"",URI="audio/en.m3u8"
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="iframe.m3u8"
        #EXT-X-IMAGE-STREAM-INF:BANDWIDTH=1,URI="images.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="avc1.4d401f,mp4a.40.2"
        video/v.m3u8
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="100@0"
        #EXT-X-KEY:METHOD=AES-128,URI="k.key",IV=0x01
        #EXT-X-PART:DURATION=1,URI="p.mp4"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="p2.mp4"
        #EXT-X-RENDITION-REPORT:URI="other.m3u8",LAST-MSN=1
        #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",X-ASSET-URI="ad.m3u8",X-ASSET-LIST="ads.json"
        #EXT-X-CUSTOM:URI="not-a-uri-tag"
        """
        var p = HLSPlaylist(text)
        var seen: [String] = []
        let n = p.rewriteURIs { seen.append($0); return "X" }
        XCTAssertEqual(seen, ["steer.json", "k0.key", "data.json", "audio/en.m3u8", "iframe.m3u8", "images.m3u8",
                              "video/v.m3u8", "init.mp4", "k.key", "p.mp4", "p2.mp4", "other.m3u8", "ad.m3u8", "ads.json"])
        XCTAssertEqual(n, 14)
        XCTAssertTrue(p.text.contains("#EXT-X-CUSTOM:URI=\"not-a-uri-tag\""))
        XCTAssertTrue(p.text.contains("CODECS=\"avc1.4d401f,mp4a.40.2\""))
    }

    func test_rewriteURIs_quotedCommaBeforeURI_isNotConfused() {
        var p = HLSPlaylist("#EXT-X-MEDIA:NAME=\"a,URI=b\",URI=\"real.m3u8\"\n")
        p.rewriteURIs { "<\($0)>" }
        XCTAssertEqual(p.text, "#EXT-X-MEDIA:NAME=\"a,URI=b\",URI=\"<real.m3u8>\"\n")
    }

    func test_kind_classifiesMasterVODAndLive() {
        XCTAssertEqual(HLSPlaylist("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n").kind, .multivariant)
        XCTAssertEqual(HLSPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n").kind, .vod)
        XCTAssertEqual(HLSPlaylist("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:4\n").kind, .vod)
        XCTAssertEqual(HLSPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:8\n#EXTINF:8,\na.ts\n").kind, .live(targetDuration: 8))
    }

    func test_segmentURIs_mediaPlaylist_inOrder() {
        let p = HLSPlaylist("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n\n#EXTINF:4,\n  b.ts \n")
        XCTAssertEqual(p.segmentURIs, ["a.ts", "b.ts"])
    }

    func test_looksLikePlaylist_withAndWithoutBOM() {
        XCTAssertTrue(HLSPlaylist.looksLikePlaylist(Array("#EXTM3U\n".utf8)))
        XCTAssertTrue(HLSPlaylist.looksLikePlaylist([0xEF, 0xBB, 0xBF] + Array("#EXTM3U".utf8)))
        XCTAssertFalse(HLSPlaylist.looksLikePlaylist(Array("<html>".utf8)))
    }
}

final class URIReferenceTests: XCTestCase {
    let base = UpstreamURL.parse("https://cdn.example.com/a/b/master.m3u8?token=x%20y")!

    func r(_ s: String) -> String? { URIReference.resolve(s, against: base)?.description }

    func test_resolve_relative_mergesWithBaseDirectory() { XCTAssertEqual(r("v/720.m3u8"), "https://cdn.example.com/a/b/v/720.m3u8") }
    func test_resolve_dotSegments_areRemoved() { XCTAssertEqual(r("../c/./d.ts"), "https://cdn.example.com/a/c/d.ts") }
    func test_resolve_tooManyDotDots_stopAtRoot() { XCTAssertEqual(r("../../../x.ts"), "https://cdn.example.com/x.ts") }
    func test_resolve_rootRelative_keepsHost() { XCTAssertEqual(r("/seg/1.ts?q=%2F"), "https://cdn.example.com/seg/1.ts?q=%2F") }
    func test_resolve_schemeRelative_takesBaseScheme() { XCTAssertEqual(r("//other.example.com/x.ts"), "https://other.example.com/x.ts") }
    func test_resolve_absolute_isNormalized() { XCTAssertEqual(r("HTTP://Other.Example.com:80/x.ts"), "http://other.example.com/x.ts") }
    func test_resolve_queryOnly_replacesQuery() { XCTAssertEqual(r("?t=2"), "https://cdn.example.com/a/b/master.m3u8?t=2") }
    func test_resolve_fragment_isDropped() { XCTAssertEqual(r("x.ts#t=10"), "https://cdn.example.com/a/b/x.ts") }
    func test_resolve_nonHTTPSchemes_areNil() {
        XCTAssertNil(r("skd://key-id"))
        XCTAssertNil(r("data:text/plain;base64,AAAA"))
    }
    func test_resolve_percentEncoding_isKept() { XCTAssertEqual(r("seg%201.ts"), "https://cdn.example.com/a/b/seg%201.ts") }
}
