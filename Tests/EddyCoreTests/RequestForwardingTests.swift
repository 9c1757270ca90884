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
        XCTAssertEqual(RequestForwarding.fill(h).map(\.name), ["Cookie", "Referer", "X-Token", "Accept-Language"])
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
