@testable import EddyCore
import XCTest

/// `cache_key` rules as values: which parameters leave the key, and a playlist's URIs
/// personalized for each viewer.
final class CacheKeyRulesTests: XCTestCase {
    func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(Substring(s))! }

    let rules = CacheKeyRules([
        .init(prefix: "http://cdn.example/vod/", ignored: .names(["Expires", "Signature", "Key-Pair-Id"])),
        .init(host: HostPattern("*.akamaized.net")!, ignored: .names(["hdnts"])),
        .init(prefix: "http://o.example/", host: HostPattern("o.example")!, ignored: .all),
    ])

    func test_theSignatureLeavesTheKeyAndTheRestKeepsItsOrder() {
        XCTAssertEqual(rules.key(for: url("http://cdn.example/vod/a.mp4?Expires=1&q=hd&Signature=x~y&Key-Pair-Id=K")),
                       "http://cdn.example/vod/a.mp4?q=hd")
        XCTAssertEqual(rules.key(for: url("http://cdn.example/vod/a.mp4?Expires=2&Signature=z")), "http://cdn.example/vod/a.mp4")
        XCTAssertEqual(rules.key(for: url("http://cdn.example/vod/a.mp4?%45xpires=2")), "http://cdn.example/vod/a.mp4", "escaped names too")
        XCTAssertEqual(rules.key(for: url("http://cdn.example/vod/a.mp4?expires=2")), "http://cdn.example/vod/a.mp4?expires=2",
                       "names are case-sensitive")
        XCTAssertEqual(rules.key(for: url("http://cdn.example/live/a.ts?Signature=1")), "http://cdn.example/live/a.ts?Signature=1",
                       "outside the prefix")
        XCTAssertEqual(rules.key(for: url("http://x.akamaized.net/a.ts?hdnts=exp~1&b=2")), "http://x.akamaized.net/a.ts?b=2")
        XCTAssertEqual(rules.key(for: url("http://o.example/a?x=1&y=2")), "http://o.example/a")
        XCTAssertEqual(rules.key(for: url("http://o.example/a")), "http://o.example/a")
        XCTAssertEqual(CacheKeyRules().key(for: url("http://cdn.example/vod/a.mp4?Signature=1")), "http://cdn.example/vod/a.mp4?Signature=1",
                       "no rule, no change: off by default")
    }

    func test_aPlaylistsURIsTakeTheRequestingViewersOwnSignature() {
        let viewer = rules.viewerParameters(of: url("http://cdn.example/vod/master.m3u8?Expires=9&Signature=B&q=1"))
        XCTAssertEqual(viewer.map(\.name), ["Expires", "Signature"])
        XCTAssertEqual(rules.personalize(url("http://cdn.example/vod/seg1.ts?Expires=1&Signature=A&n=1"), for: viewer).description,
                       "http://cdn.example/vod/seg1.ts?Expires=9&Signature=B&n=1")
        XCTAssertEqual(rules.personalize(url("http://cdn.example/vod/seg1.ts"), for: viewer).description, "http://cdn.example/vod/seg1.ts",
                       "nothing is added to a URI that carries no signature")
        XCTAssertEqual(rules.personalize(url("http://elsewhere.example/seg1.ts?Signature=A"), for: viewer).description,
                       "http://elsewhere.example/seg1.ts?Signature=A", "a URL no rule covers is left alone")
        XCTAssertTrue(rules.viewerParameters(of: url("http://cdn.example/live/x?Signature=1")).isEmpty)
    }
}
