import EddyCore
import XCTest

/// RFC 9110 section 7.6.1 and RFC 7239 for requests going upstream.
final class RequestForwardingTests: XCTestCase {
    private func headers(_ f: [(String, String)]) -> HTTPHeaders { HTTPHeaders(f) }

    func test_fill_keepsEndToEndFields_dropsHopByHopConnectionNamedAndControlledOnes() {
        let h = headers([("Host", "eddy"), ("Cookie", "a=1"), ("Referer", "http://p/"), ("X-Token", "t"),
                         ("Connection", "keep-alive, X-Secret"), ("X-Secret", "s"), ("Range", "bytes=0-9"),
                         ("If-None-Match", "\"x\""), ("Accept-Encoding", "gzip"), ("TE", "trailers"),
                         ("Accept-Language", "fr"), ("Cache-Control", "no-cache"), ("X-Forwarded-For", "1.2.3.4")])
        XCTAssertEqual(RequestForwarding.fill(h).map(\.name), ["Referer", "X-Token", "Accept-Language"])
    }

    func test_fill_dropsUnkeyedOverrides_unlessThePeerIsTrusted() {
        let names = ["X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Scheme", "X-Forwarded-Port", "X-Forwarded-Server",
                     "X-Forwarded-Prefix", "x-forwarded-anything", "X-Host", "X-Original-URL", "X-Rewrite-URL",
                     "X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "X-Original-Host"]
        let h = headers(names.map { ($0, "evil.example") } + [("X-Token", "t")])
        XCTAssertEqual(RequestForwarding.fill(h).map(\.name), ["X-Token"])
        XCTAssertEqual(RequestForwarding.fill(h, peerTrusted: true).map(\.name), names + ["X-Token"])
        XCTAssertEqual(RequestForwarding.passThrough(h).map(\.name), names + ["X-Token"], "a pass-through answer is the client's own")
    }

    func test_fill_cookies_followThePolicy() {
        let h = headers([("Cookie", "a=1; CloudFront-Signature=s"), ("Cookie", "b=2")])
        XCTAssertNil(RequestForwarding.fill(h)["Cookie"])
        XCTAssertNil(RequestForwarding.fill(h, cookies: .bypass)["Cookie"])
        XCTAssertEqual(RequestForwarding.fill(h, cookies: .forward(nil))["Cookie"], "a=1; CloudFront-Signature=s; b=2")
        XCTAssertEqual(RequestForwarding.fill(h, cookies: .forward(["CloudFront-Signature", "b"]))["Cookie"], "CloudFront-Signature=s; b=2")
        XCTAssertNil(RequestForwarding.fill(h, cookies: .forward(["cloudfront-signature"]))["Cookie"], "names are compared exactly")
        XCTAssertEqual(RequestForwarding.fill(h, peerTrusted: true).values("Cookie"), [], "cookies follow the policy, whoever sends them")
    }

    func test_cookieRules_firstMatchingRuleApplies_stripOtherwise() {
        let rules = CookieRules([.init(prefix: "http://o/shop/", policy: .bypass),
                                 .init(host: HostPattern("*.cdn.example"), policy: .forward(["k"]))])
        XCTAssertEqual(rules.policy(for: UpstreamURL.parse("http://o/shop/cart")!), .bypass)
        XCTAssertEqual(rules.policy(for: UpstreamURL.parse("http://a.cdn.example/x")!), .forward(["k"]))
        XCTAssertEqual(rules.policy(for: UpstreamURL.parse("http://o/other")!), .strip)
        XCTAssertTrue(rules.anyBypass)
        XCTAssertFalse(CookieRules().anyBypass)
    }

    func test_passThrough_keepsRangeAndConditionals() {
        let h = headers([("Range", "bytes=0-9"), ("If-None-Match", "\"x\""), ("Authorization", "Bearer t"),
                         ("Accept-Encoding", "gzip"), ("Keep-Alive", "300"), ("Proxy-Authorization", "x")])
        XCTAssertEqual(RequestForwarding.passThrough(h).map(\.name), ["Range", "If-None-Match", "Authorization", "Accept-Encoding"])
    }

    func test_clientChain_isExtendedOnlyForTrustedPeers() {
        XCTAssertEqual(RequestForwarding.xForwardedFor(incoming: "9.9.9.9", peer: "127.0.0.1", peerTrusted: false), "127.0.0.1")
        XCTAssertEqual(RequestForwarding.xForwardedFor(incoming: "9.9.9.9", peer: "127.0.0.1", peerTrusted: true), "9.9.9.9, 127.0.0.1")
        XCTAssertEqual(RequestForwarding.forwarded(incoming: nil, peer: "::1", proto: "http", peerTrusted: false),
                       "for=\"[::1]\";proto=http")
        XCTAssertEqual(RequestForwarding.forwarded(incoming: "for=9.9.9.9", peer: "10.0.0.1", proto: "http", peerTrusted: true),
                       "for=9.9.9.9, for=10.0.0.1;proto=http")
    }
}
