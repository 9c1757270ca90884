import EddyCore
import XCTest

final class HostPatternTests: XCTestCase {
    private func p(_ s: String) -> HostPattern { HostPattern(s)! }

    func test_init_plainHost_hasNoPort() {
        let h = p("cdn.example.com")
        XCTAssertEqual(h.host, "cdn.example.com")
        XCTAssertNil(h.port)
        XCTAssertEqual(h.description, "cdn.example.com")
    }

    func test_init_hostWithPort_parsesPort() {
        let h = p("cdn.example.com:8443")
        XCTAssertEqual(h.host, "cdn.example.com")
        XCTAssertEqual(h.port, 8443)
        XCTAssertEqual(h.description, "cdn.example.com:8443")
    }

    func test_init_portStar_isAnyPort() {
        let h = p("127.0.0.1:*")
        XCTAssertEqual(h.host, "127.0.0.1")
        XCTAssertNil(h.port)
    }

    func test_init_uppercase_isLowercased() {
        XCTAssertEqual(p("CDN.Example.COM").host, "cdn.example.com")
    }

    func test_init_whitespace_isTrimmed() {
        XCTAssertEqual(p("  a.example  ").host, "a.example")
    }

    func test_init_bracketedIPv6_stripsBrackets() {
        XCTAssertEqual(p("[::1]").host, "::1")
        XCTAssertNil(p("[::1]").port)
        let h = p("[::1]:8080")
        XCTAssertEqual(h.host, "::1")
        XCTAssertEqual(h.port, 8080)
        XCTAssertNil(p("[fe80::1]:*").port)
    }

    func test_init_bareIPv6_isHostWithoutPort() {
        let h = p("::1")
        XCTAssertEqual(h.host, "::1")
        XCTAssertNil(h.port)
    }

    func test_init_malformed_isNil() {
        for s in ["", "   ", ":80", "host:", "host:0", "host:65536", "host:abc", "[::1", "[::1]x", "[::1]:", "[::1]:0", "[]"] {
            XCTAssertNil(HostPattern(s), s)
        }
    }

    func test_init_portBounds_areInclusive() {
        XCTAssertEqual(p("h:1").port, 1)
        XCTAssertEqual(p("h:65535").port, 65535)
    }

    func test_matches_exactHost_anyCaseAnyPort() {
        let h = p("cdn.example.com")
        XCTAssertTrue(h.matches(host: "cdn.example.com", port: 443))
        XCTAssertTrue(h.matches(host: "CDN.EXAMPLE.com", port: 80))
        XCTAssertFalse(h.matches(host: "cdn.example.org", port: 443))
        XCTAssertFalse(h.matches(host: "xcdn.example.com", port: 443))
    }

    func test_matches_portPattern_requiresSamePort() {
        let h = p("cdn.example.com:8443")
        XCTAssertTrue(h.matches(host: "cdn.example.com", port: 8443))
        XCTAssertFalse(h.matches(host: "cdn.example.com", port: 443))
    }

    func test_matches_starGlob_matchesSubdomainsOnly() {
        let h = p("*.example.com")
        XCTAssertTrue(h.matches(host: "a.example.com", port: 80))
        XCTAssertTrue(h.matches(host: "a.b.example.com", port: 80))
        XCTAssertFalse(h.matches(host: "example.com", port: 80))
        XCTAssertFalse(h.matches(host: "a.example.com.evil.net", port: 80))
        XCTAssertFalse(h.matches(host: "aexample.com", port: 80))
    }

    func test_matches_questionMark_matchesOneCharacter() {
        let h = p("cdn?.example.com")
        XCTAssertTrue(h.matches(host: "cdn1.example.com", port: 80))
        XCTAssertFalse(h.matches(host: "cdn.example.com", port: 80))
        XCTAssertFalse(h.matches(host: "cdn12.example.com", port: 80))
    }

    func test_matches_starAlone_matchesEverything() {
        let h = p("*")
        XCTAssertTrue(h.matches(host: "anything.example", port: 1))
        XCTAssertTrue(h.matches(host: "", port: 1))
    }

    func test_matches_starInMiddleWithBacktracking_matches() {
        let h = p("a*b*c")
        XCTAssertTrue(h.matches(host: "abc", port: 80))
        XCTAssertTrue(h.matches(host: "axxbyybzzc", port: 80))
        XCTAssertFalse(h.matches(host: "axxbyy", port: 80))
        XCTAssertTrue(p("*a").matches(host: "aaa", port: 80))
        XCTAssertTrue(p("**").matches(host: "x", port: 80))
    }

    func test_matches_ipv6Pattern_matchesUnbracketedHost() {
        XCTAssertTrue(p("[::1]:8080").matches(host: "::1", port: 8080))
        XCTAssertFalse(p("[::1]:8080").matches(host: "::1", port: 80))
    }

    func test_matches_longPathologicalInput_finishes() {
        let h = p(String(repeating: "*a", count: 30) + "b")
        XCTAssertFalse(h.matches(host: String(repeating: "a", count: 5000), port: 80))
    }
}
