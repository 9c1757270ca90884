import EddyCore
import XCTest
@testable import EddyHLS

/// The fast path of `URIReference.resolve` (a plain relative reference, issue 59) gives what the
/// full resolution of RFC 3986 section 5.2 gives, for every reference and base tried.
final class URIReferenceFastPathTests: XCTestCase {
    private let bases = ["https://cdn.example.com/a/b/master.m3u8?token=x%20y", "http://h:8080/index.m3u8", "http://h/",
                         "http://h/a/./b/../c/list.m3u8", "https://[::1]:8443/live/x/", "http://h/seg.ts?x=/./y"]
    private let refs = ["seg1.ts", "v0/seg1.m4s?t=1", "s.ts?a=/./b&c=../d", "a/../b.ts", "./x.ts", ".hidden/x.ts", "x/.y/z.ts",
                        "x.ts#frag", "x y.ts", " x.ts", "a:b", "?q", "/abs.ts", "//other/x.ts", "", "..", "seg%20one.ts",
                        "http://other/x.ts", "x.ts?", "ü.ts", "x.ts?q=ü", "x\t.ts", "a/b/c/d/e.ts?x#y"]

    func test_fastPath_matchesTheFullResolution() {
        for b in bases {
            let base = UpstreamURL.parse(Substring(b))!
            for ref in refs {
                XCTAssertEqual(URIReference.resolve(ref, against: base)?.description, URIReference.merged(ref, against: base)?.description,
                               "\(ref) against \(b)")
            }
        }
    }

    func test_plainRelative_isTheCommonCaseOnly() {
        XCTAssertTrue(URIReference.isPlainRelative("seg1.ts"))
        XCTAssertTrue(URIReference.isPlainRelative("v0/seg1.m4s?t=/./x"))
        for ref in ["", "/a.ts", "?q", "./a.ts", "a/../b", "a:b", "a#b", "a b", "a.ts?x#y"] {
            XCTAssertFalse(URIReference.isPlainRelative(ref), ref)
        }
    }
}
