import XCTest
@testable import EddyHLS

/// DRM key tags (issue 13): reported, never fetched; the identity key beside them still is.
final class MediaPlaylistDRMTests: XCTestCase {
    func test_drmKeyFormatsAndSchemes() {
        let fairplay = MediaPlaylist("""
        #EXTM3U
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
        #EXTINF:4,
        s1.ts
        """)
        XCTAssertTrue(fairplay.drm)
        XCTAssertNil(fairplay.segments[0].keyURI, "no key to download")
        let both = MediaPlaylist("""
        #EXTM3U
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="k.bin",KEYFORMAT="identity"
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
        #EXTINF:4,
        s1.ts
        """)
        XCTAssertTrue(both.drm)
        XCTAssertEqual(both.segments[0].keyURI, "k.bin", "the identity key still applies")
        XCTAssertEqual(both.segments[0].keyMethod, "SAMPLE-AES")
        let aes = MediaPlaylist("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"https://k/1\"\n#EXTINF:4,\ns1.ts\n")
        XCTAssertFalse(aes.drm)
        XCTAssertEqual(aes.segments[0].keyURI, "https://k/1")
        XCTAssertTrue(MediaPlaylist.isDRM(format: nil, uri: "skd://x"))
        XCTAssertFalse(MediaPlaylist.isDRM(format: nil, uri: "keys/a:b.bin"), "a colon after a slash is no scheme")
        XCTAssertFalse(MediaPlaylist.isDRM(format: "identity", uri: "https://k"))
    }
}
