import XCTest
@testable import EddyCore

/// The admin listener against the browser (issue 34): DNS rebinding and cross-site requests.
final class AdminRequestGuardTests: XCTestCase {
    private let loopback = AdminRequestGuard(listenHost: "127.0.0.1", names: ["eddy.lan"])

    private func check(_ g: AdminRequestGuard, _ method: String = "GET", host: String? = "127.0.0.1:9090", origin: String? = nil,
                       site: String? = nil, type: String? = nil, body: Bool = false) -> AdminRequestGuard.Verdict {
        g.check(method: method, host: host, origin: origin, fetchSite: site, contentType: type, hasBody: body)
    }

    private func status(_ v: AdminRequestGuard.Verdict) -> Int? {
        if case let .refuse(s, _) = v { return s }
        return nil
    }

    func test_hosts_loopbackLiteralsItsOwnAndListedNamesOnly() {
        for host in ["127.0.0.1:9090", "localhost:9090", "LOCALHOST", "127.1.2.3:1", "[::1]:9090", "192.168.1.20:9090",
                     "[fe80::1]:9090", "eddy.lan:9090", "EDDY.LAN"] {
            XCTAssertEqual(check(loopback, host: host), .allow, host)
        }
        for host in ["evil.example:9090", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io:9090", "eddy.lan.evil:9090",
                     "1.2.3:9090", "[nonsense]:1"] {
            XCTAssertEqual(status(check(loopback, host: host)), 421, host)
        }
        let named = AdminRequestGuard(listenHost: "box.home")
        XCTAssertEqual(check(named, host: "box.home:9090"), .allow, "the listener's own address")
    }

    func test_aMissingHost_isLoopbackOnlyOnALoopbackListener() {
        XCTAssertEqual(check(loopback, host: nil), .allow)
        XCTAssertEqual(check(loopback, host: ""), .allow)
        XCTAssertEqual(status(check(AdminRequestGuard(listenHost: "0.0.0.0"), host: nil)), 421)
    }

    func test_writes_fromAnotherOriginOrCrossSite_areRefused() {
        for m in ["POST", "PUT", "PATCH", "DELETE", "post"] {
            XCTAssertEqual(status(check(loopback, m, origin: "http://evil.example")), 403, m)
            XCTAssertEqual(status(check(loopback, m, site: "cross-site")), 403, m)
            XCTAssertEqual(status(check(loopback, m, site: "same-site")), 403, "another port of the same site: \(m)")
            XCTAssertEqual(status(check(loopback, m, origin: "null")), 403, "a sandboxed page or a file: \(m)")
            XCTAssertEqual(status(check(loopback, m, origin: "http://127.0.0.1:8080")), 403, "the proxy listener's port: \(m)")
            XCTAssertEqual(status(check(loopback, m, origin: "https://127.0.0.1:9090")), 403, "another scheme: \(m)")
        }
        XCTAssertEqual(check(loopback, "GET", origin: "http://evil.example", site: "cross-site"), .allow,
                       "a read from another origin is answered, and the browser keeps it from the page (no CORS grant)")
    }

    func test_theCLIAndTheDashboard_stillWork() {
        // The CLI: no Origin, no Sec-Fetch-*, JSON bodies.
        XCTAssertEqual(check(loopback, "POST", type: "application/json", body: true), .allow)
        XCTAssertEqual(check(loopback, "DELETE"), .allow)
        // The dashboard: same-origin, by any name the listener answers to.
        XCTAssertEqual(check(loopback, "POST", origin: "http://127.0.0.1:9090", site: "same-origin"), .allow)
        XCTAssertEqual(check(loopback, "POST", host: "localhost:9090", origin: "http://localhost:9090", site: "same-origin"), .allow)
        XCTAssertEqual(check(loopback, "DELETE", host: "eddy.lan", origin: "http://eddy.lan:80"), .allow)
        XCTAssertEqual(check(loopback, "POST", site: "none"), .allow, "typed in the address bar")
    }

    func test_aBodyMustBeJSON() {
        XCTAssertEqual(status(check(loopback, "POST", type: "text/plain", body: true)), 415, "a simple request, sent without preflight")
        XCTAssertEqual(status(check(loopback, "POST", type: "application/x-www-form-urlencoded", body: true)), 415)
        XCTAssertEqual(status(check(loopback, "PATCH", type: nil, body: true)), 415)
        XCTAssertEqual(check(loopback, "PATCH", type: "Application/JSON; charset=utf-8", body: true), .allow)
        XCTAssertEqual(check(loopback, "POST", type: "text/plain", body: false), .allow, "no body read")
    }
}
