import XCTest
@testable import EddyCore

final class UpstreamGateTests: XCTestCase {
    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(Substring(s))! }
    private let routes = [OriginRoute(prefix: "/v/", base: UpstreamURL.parse("http://127.0.0.1:8000/public")!),
                          OriginRoute(prefix: "/", base: UpstreamURL.parse("https://cdn.example.com")!)]

    func test_check_urlsUnderAMappedBase_areAllowedWithoutAddressCheck() {
        let g = UpstreamGate(routes: routes, allowHosts: [])
        XCTAssertEqual(g.check(url("http://127.0.0.1:8000/public/a.ts")), .allow(checkAddress: false))
        XCTAssertEqual(g.check(url("http://127.0.0.1:8000/public")), .allow(checkAddress: false))
        XCTAssertEqual(g.check(url("https://cdn.example.com/anything")), .allow(checkAddress: false))
    }

    func test_check_sameOriginOutsideTheBase_isRefused() {
        let g = UpstreamGate(routes: routes, allowHosts: [])
        for s in ["http://127.0.0.1:8000/private/secret", "http://127.0.0.1:8000/publicity", "http://127.0.0.1:8000/public/../private",
                  "http://127.0.0.1:8000/public/%2e%2e/private", "http://127.0.0.1:8001/public/a", "https://127.0.0.1:8000/public/a"] {
            guard case .refuse = g.check(url(s)) else { return XCTFail(s) }
        }
    }

    func test_check_internalTargetsOfWildcards_areRefused() {
        let g = UpstreamGate(routes: [], allowHosts: [HostPattern("*")!])
        for s in ["http://127.0.0.1:9/x", "http://localhost:9/", "http://[::1]:9/", "http://[0:0:0:0:0:0:0:1]:9/", "http://[::127.0.0.1]/",
                  "http://[0:0:0:0:0:ffff:7f00:1]/", "http://[0000::0001]/", "http://[::1%25lo]/", "http://[fe80::1]/", "http://[fd00::1]/",
                  "http://10.0.0.1/", "http://169.254.169.254/latest"] {
            guard case .refuse = g.check(url(s)) else { return XCTFail(s) }
        }
        XCTAssertEqual(g.check(url("http://cdn.example.com/a")), .allow(checkAddress: true))
    }

    func test_check_explicitHost_mayBeInternal() {
        let g = UpstreamGate(routes: [], allowHosts: [HostPattern("127.0.0.1:9")!])
        XCTAssertEqual(g.check(url("http://127.0.0.1:9/x")), .allow(checkAddress: false))
        guard case .refuse = g.check(url("http://127.0.0.1:10/x")) else { return XCTFail() }
    }

    func test_check_unknownHost_isRefused() {
        let g = UpstreamGate(routes: routes, allowHosts: [HostPattern("*.example.org")!])
        guard case .refuse = g.check(url("http://evil.example.com/x")) else { return XCTFail() }
        XCTAssertEqual(g.check(url("http://a.example.org/x")), .allow(checkAddress: true))
    }

    func test_check_baseWithUnreservedEscapes_admitsItsOwnRoute() {
        let g = UpstreamGate(routes: [OriginRoute(prefix: "/u/", base: url("http://origin.example/%7Euser"))], allowHosts: [])
        XCTAssertEqual(g.check(url("http://origin.example/~user/a.ts")), .allow(checkAddress: false))
        XCTAssertEqual(g.check(url("http://origin.example/%7Euser/a.ts")), .allow(checkAddress: false))
    }
}
