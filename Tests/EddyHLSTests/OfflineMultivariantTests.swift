@testable import EddyHLS
import XCTest

/// The multivariant playlist served offline lists only what was downloaded.
final class OfflineMultivariantTests: XCTestCase {
    private let master = """
    #EXTM3U
    #EXT-X-INDEPENDENT-SEGMENTS
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a0/index.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=NO,URI="a1/index.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="surround",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,URI="a2/index.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,URI="s0/index.m3u8"
    #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
    #EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="stereo",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
    v0/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="stereo",SUBTITLES="subs"
    v1/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=1000000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="surround",SUBTITLES="subs"
    v1/index.m3u8
    #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="v0/iframes.m3u8"

    """

    private func filtered(_ has: Set<String>) -> [String] {
        OfflineMultivariant.filter(HLSPlaylist(master), has: { has.contains($0) }).text
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func test_onlyTheDownloadedVariantAndRenditionsStay_andTheDefaultMovesToWhatIsLeft() {
        let out = filtered(["v0/index.m3u8", "a1/index.m3u8", "s0/index.m3u8"])
        XCTAssertEqual(out, [
            "#EXTM3U",
            "#EXT-X-INDEPENDENT-SEGMENTS",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"stereo\",NAME=\"Francais\",LANGUAGE=\"fr\",DEFAULT=YES,AUTOSELECT=YES,URI=\"a1/index.m3u8\"",
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=NO,URI=\"s0/index.m3u8\"",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"CC1\",INSTREAM-ID=\"CC1\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.64001f,mp4a.40.2\",AUDIO=\"stereo\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=\"cc\"",
            "v0/index.m3u8",
            "",
        ], "a group without a default keeps none (subs); the I-frame playlist was not downloaded")
    }

    func test_aVariantWhoseAudioGroupHasNothingLeft_isDropped_evenWhenItsVideoIsThere() {
        let out = filtered(["v1/index.m3u8", "a0/index.m3u8"])
        XCTAssertEqual(out.filter { $0.hasPrefix("v") }, ["v1/index.m3u8"], "the surround variant shares v1 but its audio is missing")
        XCTAssertTrue(out.contains("#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.64001f,mp4a.40.2\",AUDIO=\"stereo\""),
                      "the subtitles group has nothing left: taken off the variant")
        XCTAssertFalse(out.contains { $0.contains("GROUP-ID=\"subs\"") || $0.contains("GROUP-ID=\"surround\"") })
        XCTAssertTrue(out.contains { $0.contains("LANGUAGE=\"en\",DEFAULT=YES") }, "the original default stays as it was")
    }

    func test_everythingDownloaded_isTheSamePlaylist() {
        let all: Set = ["v0/index.m3u8", "v1/index.m3u8", "a0/index.m3u8", "a1/index.m3u8", "a2/index.m3u8", "s0/index.m3u8",
                        "v0/iframes.m3u8"]
        XCTAssertEqual(OfflineMultivariant.filter(HLSPlaylist(master), has: { all.contains($0) }).text, master)
    }

    func test_nothingDownloaded_leavesNoVariant() {
        XCTAssertFalse(filtered([]).contains { $0.hasPrefix("#EXT-X-STREAM-INF") || $0.hasPrefix("v") })
    }

    func test_setting_keepsQuotedCommas_andAppendsOrRemoves() {
        let line: Substring = "#EXT-X-STREAM-INF:CODECS=\"a,b\",SUBTITLES=\"s\",BANDWIDTH=1"
        XCTAssertEqual(OfflineMultivariant.setting(line, "SUBTITLES", to: nil), "#EXT-X-STREAM-INF:CODECS=\"a,b\",BANDWIDTH=1")
        XCTAssertEqual(OfflineMultivariant.setting(line, "DEFAULT", to: "YES"),
                       "#EXT-X-STREAM-INF:CODECS=\"a,b\",SUBTITLES=\"s\",BANDWIDTH=1,DEFAULT=YES")
        XCTAssertEqual(OfflineMultivariant.setting(line, "BANDWIDTH", to: "2"), "#EXT-X-STREAM-INF:CODECS=\"a,b\",SUBTITLES=\"s\",BANDWIDTH=2")
    }
}
