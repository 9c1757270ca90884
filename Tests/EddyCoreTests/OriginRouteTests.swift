import EddyCore
import XCTest

final class OriginRouteTests: XCTestCase {
    private let base = UpstreamURL.parse("https://cdn.example.com/base")!

    func test_init_prefix_isNormalizedWithLeadingAndTrailingSlash() {
        XCTAssertEqual(OriginRoute(prefix: "cdn1", base: base).prefix, "/cdn1/")
        XCTAssertEqual(OriginRoute(prefix: "/cdn1", base: base).prefix, "/cdn1/")
        XCTAssertEqual(OriginRoute(prefix: "/cdn1/", base: base).prefix, "/cdn1/")
        XCTAssertEqual(OriginRoute(prefix: "/a/b", base: base).prefix, "/a/b/")
    }

    func test_init_rootOrEmpty_isSlash() {
        XCTAssertEqual(OriginRoute(prefix: "/", base: base).prefix, "/")
        XCTAssertEqual(OriginRoute(prefix: "", base: base).prefix, "/")
    }

    func test_init_base_isKept() {
        XCTAssertEqual(OriginRoute(prefix: "/", base: base).base, base)
    }
}
