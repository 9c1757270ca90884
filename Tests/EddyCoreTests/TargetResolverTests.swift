import EddyCore
import XCTest

final class TargetResolverTests: XCTestCase {
    private func u(_ s: String) -> UpstreamURL { UpstreamURL.parse(s[...])! }

    private func resolver(routes: [(String, String)] = [], allow: [String] = []) -> TargetResolver {
        TargetResolver(routes: routes.map { OriginRoute(prefix: $0.0, base: u($0.1)) }, allowHosts: allow.map { HostPattern($0)! })
    }

    private func assertRefused(_ r: RequestTarget, _ status: Int, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .refused(s, reason) = r else { return XCTFail("expected refusal \(status), got \(r)", file: file, line: line) }
        XCTAssertEqual(s, status, reason, file: file, line: line)
        XCTAssertFalse(reason.isEmpty, file: file, line: line)
    }

    // MARK: mapped form

    func test_init_routes_areSortedLongestPrefixFirst() {
        let r = resolver(routes: [("/", "http://a.example/"), ("/x/y/", "http://c.example/"), ("/x", "http://b.example/")])
        XCTAssertEqual(r.routes.map(\.prefix), ["/x/y/", "/x/", "/"])
    }

    func test_resolve_mappedPath_joinsWithBase() {
        let r = resolver(routes: [("/", "https://origin.example.com/root")])
        XCTAssertEqual(r.resolve("/movies/a.mp4?t=1"),
                       .upstream(url: u("https://origin.example.com/root/movies/a.mp4?t=1"), form: .mapped, checkAddress: false))
    }

    func test_resolve_mappedLongestPrefix_wins() {
        let r = resolver(routes: [("/", "https://origin.example.com/"), ("/cdn1/", "http://cdn1.example.com:8080/v")])
        XCTAssertEqual(r.resolve("/cdn1/x/y.ts"),
                       .upstream(url: u("http://cdn1.example.com:8080/v/x/y.ts"), form: .mapped, checkAddress: false))
        XCTAssertEqual(r.resolve("/cdn10/x"),
                       .upstream(url: u("https://origin.example.com/cdn10/x"), form: .mapped, checkAddress: false))
        XCTAssertEqual(r.resolve("/other"),
                       .upstream(url: u("https://origin.example.com/other"), form: .mapped, checkAddress: false))
    }

    func test_resolve_prefixWithoutTrailingSlash_mapsToBaseRoot() {
        let r = resolver(routes: [("/cdn1", "http://cdn1.example.com/base")])
        XCTAssertEqual(r.resolve("/cdn1"), .upstream(url: u("http://cdn1.example.com/base/"), form: .mapped, checkAddress: false))
        XCTAssertEqual(r.resolve("/cdn1/"), .upstream(url: u("http://cdn1.example.com/base/"), form: .mapped, checkAddress: false))
    }

    func test_resolve_mappedInvalidCharacters_is400() {
        let r = resolver(routes: [("/", "http://a.example.com/")])
        assertRefused(r.resolve("/a b"), 400)
        assertRefused(r.resolve("/caf\u{E9}"), 400)
    }

    func test_resolve_climbOutOfTheRoute_is400() {
        let r = resolver(routes: [("/v/", "http://origin.example/public")])
        for t in ["/v/../private/secret.txt", "/v/%2e%2e/private/secret.txt", "/v/.%2e/private/secret.txt", "/v/%2E%2E/private",
                  "/v/..%2fprivate/secret.txt", "/v/..%2Fprivate", "/v/a/../../private/secret.txt", "/v/..%5cprivate", "/v/..\\private",
                  "/v//-2;./"] {
            assertRefused(r.resolve(t), 400)
        }
    }

    func test_resolve_dotSegmentsInsideTheRoute_areResolved() {
        let r = resolver(routes: [("/v/", "http://origin.example/public")])
        XCTAssertEqual(r.resolve("/v/sub/../ok.txt"), .upstream(url: u("http://origin.example/public/ok.txt"), form: .mapped, checkAddress: false))
        XCTAssertEqual(r.resolve("/v/./a/%2e/b%2Ebin?q=/../"),
                       .upstream(url: u("http://origin.example/public/a/b.bin?q=/../"), form: .mapped, checkAddress: false))
    }

    func test_eddyTarget_urlWithUnreservedEscapes_roundTripsToTheEquivalentURL() {
        let r = resolver(routes: [("/v/", "http://origin.example/public")])
        XCTAssertEqual(r.eddyTarget(for: u("http://origin.example/public/%7Euser/a.ts"), form: .mapped), "/v/%7Euser/a.ts")
    }

    func test_resolve_noOrigin_is404() {
        assertRefused(resolver().resolve("/movies/a.mp4"), 404)
        assertRefused(resolver(routes: [("/cdn1/", "http://cdn1.example.com/")]).resolve("/cdn2/a"), 404)
    }

    // MARK: URL-prefix and forward forms

    func test_resolve_httpPrefixForm_isUrlPrefixWithAddressCheck() {
        let r = resolver(allow: ["*.example.com"])
        XCTAssertEqual(r.resolve("/http://cdn.example.com/a.mp4"),
                       .upstream(url: u("http://cdn.example.com/a.mp4"), form: .urlPrefix, checkAddress: true))
        XCTAssertEqual(r.resolve("/https://cdn.example.com:8443/a?b"),
                       .upstream(url: u("https://cdn.example.com:8443/a?b"), form: .urlPrefix, checkAddress: true))
    }

    func test_resolve_prefixForm_takesPrecedenceOverRootRoute() {
        let r = resolver(routes: [("/", "http://origin.example.com/")], allow: ["cdn.example.com"])
        guard case let .upstream(url, form, _) = r.resolve("/http://cdn.example.com/x") else { return XCTFail() }
        XCTAssertEqual(url.host, "cdn.example.com")
        XCTAssertEqual(form, .urlPrefix)
    }

    func test_resolve_absoluteForm_isForward() {
        let r = resolver(allow: ["*.example.com"])
        XCTAssertEqual(r.resolve("http://cdn.example.com/a.mp4"),
                       .upstream(url: u("http://cdn.example.com/a.mp4"), form: .forward, checkAddress: true))
        XCTAssertEqual(r.resolve("HTTPS://CDN.example.com/a"),
                       .upstream(url: u("https://cdn.example.com/a"), form: .forward, checkAddress: true))
    }

    func test_resolve_hostNotAllowed_is403() {
        let r = resolver(allow: ["*.example.com"])
        assertRefused(r.resolve("/http://evil.net/x"), 403)
        assertRefused(r.resolve("http://example.com.evil.net/x"), 403)
        assertRefused(resolver().resolve("/http://cdn.example.com/x"), 403)
    }

    func test_resolve_portNotAllowed_is403() {
        let r = resolver(allow: ["cdn.example.com:8443"])
        assertRefused(r.resolve("/https://cdn.example.com/x"), 403)
        XCTAssertEqual(r.resolve("/https://cdn.example.com:8443/x"),
                       .upstream(url: u("https://cdn.example.com:8443/x"), form: .urlPrefix, checkAddress: false))
    }

    func test_resolve_privateLiteralWithWildcardPattern_is403() {
        let r = resolver(allow: ["*"])
        for t in ["/http://127.0.0.1/x", "/http://10.0.0.5:8080/x", "/http://169.254.169.254/latest/meta-data",
                  "/http://localhost/x", "/http://[::1]/x", "/http://[fe80::1]/x", "http://192.168.1.1/x", "http://a.localhost/"] {
            assertRefused(r.resolve(t), 403)
        }
        XCTAssertEqual(r.resolve("/http://93.184.216.34/x"),
                       .upstream(url: u("http://93.184.216.34/x"), form: .urlPrefix, checkAddress: true))
    }

    func test_resolve_privateLiteralWithGlobInIP_is403() {
        assertRefused(resolver(allow: ["127.0.0.*"]).resolve("/http://127.0.0.1/x"), 403)
        assertRefused(resolver(allow: ["127.0.0.?"]).resolve("/http://127.0.0.1/x"), 403)
    }

    func test_resolve_explicitHostPattern_allowsLoopbackWithoutAddressCheck() {
        let r = resolver(allow: ["*", "127.0.0.1"])
        XCTAssertEqual(r.resolve("/http://127.0.0.1:9000/x"),
                       .upstream(url: u("http://127.0.0.1:9000/x"), form: .urlPrefix, checkAddress: false))
        XCTAssertEqual(resolver(allow: ["127.0.0.1:*"]).resolve("http://127.0.0.1:1234/"),
                       .upstream(url: u("http://127.0.0.1:1234/"), form: .forward, checkAddress: false))
        XCTAssertEqual(resolver(allow: ["[::1]:8080"]).resolve("/http://[::1]:8080/"),
                       .upstream(url: u("http://[::1]:8080/"), form: .urlPrefix, checkAddress: false))
    }

    func test_resolve_explicitNamePattern_skipsAddressCheck() {
        XCTAssertEqual(resolver(allow: ["cdn.example.com"]).resolve("/http://cdn.example.com/"),
                       .upstream(url: u("http://cdn.example.com/"), form: .urlPrefix, checkAddress: false))
    }

    func test_resolve_malformedUpstreamURL_is400() {
        let r = resolver(allow: ["*"])
        for t in ["/http://user:pw@cdn.example.com/", "/https://", "/http://cdn.example.com:99999/", "/http://a b/",
                  "http://[::1/x", "http://cdn.example.com/a b"] {
            assertRefused(r.resolve(t), 400)
        }
    }

    func test_resolve_neitherPathNorURL_is400() {
        let r = resolver(routes: [("/", "http://a.example.com/")], allow: ["*"])
        for t in ["*", "cdn.example.com:443", "ftp://cdn.example.com/", ""] {
            assertRefused(r.resolve(t), 400)
        }
    }
}

final class TargetResolverEddyTargetTests: XCTestCase {
    let resolver = TargetResolver(
        routes: [OriginRoute(prefix: "/", base: UpstreamURL.parse("https://cdn.example.com/base")!),
                 OriginRoute(prefix: "/two/", base: UpstreamURL.parse("http://second.example.com")!)],
        allowHosts: [HostPattern("*.example.org")!])

    func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(s[...])! }

    func test_eddyTarget_mappedForm_usesTheRoutePrefix() {
        XCTAssertEqual(resolver.eddyTarget(for: url("https://cdn.example.com/base/v/a.m3u8?t=1"), form: .mapped), "/v/a.m3u8?t=1")
        XCTAssertEqual(resolver.eddyTarget(for: url("http://second.example.com/x.ts"), form: .mapped), "/two/x.ts")
    }

    func test_eddyTarget_mappedFormOutsideRoutes_fallsBackToPrefixFormWhenAllowed() {
        XCTAssertEqual(resolver.eddyTarget(for: url("https://media.example.org/s.ts"), form: .mapped), "/https://media.example.org/s.ts")
    }

    func test_eddyTarget_hostNotAllowed_isNil() {
        XCTAssertNil(resolver.eddyTarget(for: url("https://evil.example.net/s.ts"), form: .urlPrefix))
        XCTAssertNil(resolver.eddyTarget(for: url("https://cdn.example.com/elsewhere/s.ts"), form: .urlPrefix))
    }

    func test_eddyTarget_forwardForm_isNil() {
        XCTAssertNil(resolver.eddyTarget(for: url("https://media.example.org/s.ts"), form: .forward))
    }

    func test_eddyTarget_everyResult_routesBackToTheSameURL() {
        for s in ["https://cdn.example.com/base/a/b.ts", "http://second.example.com/q?x=%20", "https://a.example.org:8443/z"] {
            for form in [RequestForm.mapped, .urlPrefix] {
                guard let t = resolver.eddyTarget(for: url(s), form: form) else { continue }
                guard case let .upstream(u, _, _) = resolver.resolve(t) else { return XCTFail(t) }
                XCTAssertEqual(u, url(s))
            }
        }
    }
}
