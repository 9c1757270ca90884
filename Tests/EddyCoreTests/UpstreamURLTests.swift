import EddyCore
import XCTest

/// RFC 9110 section 4.2 (http and https URIs) and RFC 3986 authority syntax.
final class UpstreamURLTests: XCTestCase {
    private func url(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> UpstreamURL? {
        UpstreamURL.parse(s[...])
    }

    func test_parse_httpWithoutPort_usesDefault80() {
        let u = url("http://example.com/a")
        XCTAssertEqual(u, UpstreamURL(scheme: "http", host: "example.com", port: 80, pathAndQuery: "/a"))
        XCTAssertEqual(u?.defaultPort, 80)
    }

    func test_parse_httpsWithoutPort_usesDefault443() {
        let u = url("https://example.com/a")
        XCTAssertEqual(u?.port, 443)
        XCTAssertEqual(u?.defaultPort, 443)
    }

    func test_parse_explicitPort_isKept() {
        XCTAssertEqual(url("http://example.com:8080/x")?.port, 8080)
        XCTAssertEqual(url("https://example.com:1/x")?.port, 1)
        XCTAssertEqual(url("https://example.com:65535/x")?.port, 65535)
    }

    func test_parse_emptyPort_isDefault() {
        XCTAssertEqual(url("http://example.com:/x")?.port, 80)
    }

    func test_parse_schemeAndHostCase_areLowercasedPathIsNot() {
        let u = url("HTTPS://Example.COM/Movies/A.mp4?Q=X")
        XCTAssertEqual(u?.scheme, "https")
        XCTAssertEqual(u?.host, "example.com")
        XCTAssertEqual(u?.pathAndQuery, "/Movies/A.mp4?Q=X")
    }

    func test_parse_noPath_isSlash() {
        XCTAssertEqual(url("http://example.com")?.pathAndQuery, "/")
    }

    func test_parse_queryWithoutPath_getsSlash() {
        XCTAssertEqual(url("http://example.com?q=1")?.pathAndQuery, "/?q=1")
    }

    func test_parse_ipv6Literal_hostWithoutBrackets() {
        let u = url("http://[::1]:8080/x")
        XCTAssertEqual(u?.host, "::1")
        XCTAssertEqual(u?.port, 8080)
        XCTAssertEqual(u?.authority, "[::1]:8080")
        XCTAssertEqual(u?.description, "http://[::1]:8080/x")
    }

    func test_parse_ipv6LiteralDefaultPort_isBracketedInDescription() {
        let u = url("https://[2001:DB8::1]/a")
        XCTAssertEqual(u?.host, "2001:db8::1")
        XCTAssertEqual(u?.port, 443)
        XCTAssertEqual(u?.description, "https://[2001:db8::1]/a")
    }

    func test_parse_ipv6WithZone_isAccepted() {
        XCTAssertEqual(url("http://[fe80::1%25eth0]/")?.host, "fe80::1%25eth0")
    }

    func test_parse_ipv4Literal_isHost() {
        XCTAssertEqual(url("http://192.0.2.1:81/")?.host, "192.0.2.1")
    }

    func test_parse_userinfo_isRejected() {
        XCTAssertNil(url("http://user:pass@example.com/"))
        XCTAssertNil(url("http://user@example.com/"))
        XCTAssertNil(url("http://@example.com/"))
    }

    func test_parse_atInPathOrQuery_isAllowed() {
        XCTAssertEqual(url("http://example.com/a@b?c=@")?.pathAndQuery, "/a@b?c=@")
        XCTAssertEqual(url("http://example.com?x@y")?.host, "example.com")
    }

    func test_parse_fragment_isDropped() {
        XCTAssertEqual(url("http://example.com/a?b=1#frag")?.pathAndQuery, "/a?b=1")
        XCTAssertEqual(url("http://example.com#frag")?.pathAndQuery, "/")
        XCTAssertEqual(url("http://example.com/a#b?c")?.pathAndQuery, "/a")
    }

    func test_parse_percentEncodingAndQuery_areKeptExactly() {
        let raw = "/a%20b/%7Euser/c%2fd?x=%2F&y=a+b&z&w=%41"
        XCTAssertEqual(url("http://example.com" + raw)?.pathAndQuery, raw)
    }

    func test_parse_dotSegments_areNotNormalized() {
        XCTAssertEqual(url("http://example.com/a/../b/./c")?.pathAndQuery, "/a/../b/./c")
    }

    func test_parse_invalid_isNil() {
        for s in ["", "example.com/x", "ftp://example.com/", "http:/example.com", "http//example.com", "http:example.com",
                  "http://", "http:///x", "http://?q", "http://exa mple.com/", "http://exa%41mple.com/", "http://example.com:0/",
                  "http://example.com:65536/", "http://example.com:abc/", "http://example.com:-1/", "http://[::1/",
                  "http://[::1]x/", "http://[]/", "http://::1/", "http://example.com/a b", "http://example.com/ä",
                  "http://example.com/\u{7F}", "http://exam\u{E9}ple.com/"] {
            XCTAssertNil(url(s), s)
        }
    }

    func test_parse_signedPort_isRejected() {
        // RFC 3986: port = *DIGIT.
        XCTAssertNil(url("http://example.com:+80/"))
        XCTAssertNil(url("http://example.com:+8080/"))
    }

    func test_authority_defaultPort_isOmitted() {
        XCTAssertEqual(url("http://example.com:80/")?.authority, "example.com")
        XCTAssertEqual(url("https://example.com:443/")?.authority, "example.com")
        XCTAssertEqual(url("http://example.com:443/")?.authority, "example.com:443")
        XCTAssertEqual(url("https://example.com:80/")?.authority, "example.com:80")
    }

    func test_description_equivalentSpellings_normalizeToSameKey() {
        let a = url("HTTP://EXAMPLE.com:80/x?y")
        let b = url("http://example.com/x?y#frag")
        XCTAssertEqual(a?.description, "http://example.com/x?y")
        XCTAssertEqual(a?.description, b?.description)
        XCTAssertEqual(a, b)
        XCTAssertEqual(url("http://example.com")?.description, "http://example.com/")
    }

    func test_appending_baseWithPath_joinsWithOneSlash() {
        let base = url("https://cdn.example.com/base")!
        XCTAssertEqual(base.appending(pathAndQuery: "/movies/a.mp4").description, "https://cdn.example.com/base/movies/a.mp4")
        let slash = url("https://cdn.example.com/base/")!
        XCTAssertEqual(slash.appending(pathAndQuery: "/movies/a.mp4").pathAndQuery, "/base/movies/a.mp4")
    }

    func test_appending_rootBase_isSuffix() {
        let base = url("http://cdn.example.com:8080")!
        let u = base.appending(pathAndQuery: "/a?b=%20")
        XCTAssertEqual(u.pathAndQuery, "/a?b=%20")
        XCTAssertEqual(u.port, 8080)
        XCTAssertEqual(u.host, "cdn.example.com")
        XCTAssertEqual(u.scheme, "http")
    }

    func test_appending_keepsAuthority_andDescriptionMatchesParse() {
        let base = url("http://[::1]:8080/v/")!
        let u = base.appending(pathAndQuery: "/a.ts")
        XCTAssertEqual(u.description, "http://[::1]:8080/v/a.ts")
        XCTAssertEqual(u, url("http://[::1]:8080/v/a.ts"))
        XCTAssertEqual(u.hashValue, url("http://[::1]:8080/v/a.ts")!.hashValue)
        XCTAssertNotEqual(u, url("http://[::1]:8081/v/a.ts"))
        XCTAssertNotEqual(url("http://a/x"), url("https://a/x"))
    }

    func test_parse_bracketedHostThatIsNotIPv6_isNil() {
        for s in ["http://[a%25b]/x", "http://[example.com]/x", "http://[127.0.0.1]/x", "http://[]/x", "http://[::1%25lo/x"] {
            XCTAssertNil(UpstreamURL.parse(Substring(s)), s)
        }
        XCTAssertEqual(UpstreamURL.parse("http://[::1%25lo]:8080/x")?.description, "http://[::1%25lo]:8080/x")
    }

    func test_parse_descriptionParsesAgainToTheSameURL() {
        for s in ["http://[2001:DB8::1]/a", "https://Example.COM:443/a?b", "http://h:8080", "http://[::ffff:1.2.3.4]:1/x#f"] {
            guard let u = UpstreamURL.parse(Substring(s)) else { return XCTFail(s) }
            XCTAssertEqual(UpstreamURL.parse(Substring(u.description)), u, s)
        }
    }

    func test_hasSameOrigin_comparesSchemeHostAndPort_notPath() {
        let a = UpstreamURL.parse("https://cdn.example.com/a.mp4")!
        XCTAssertTrue(a.hasSameOrigin(as: UpstreamURL.parse("https://cdn.example.com:443/b?x=1")!))
        XCTAssertFalse(a.hasSameOrigin(as: UpstreamURL.parse("http://cdn.example.com/a.mp4")!))
        XCTAssertFalse(a.hasSameOrigin(as: UpstreamURL.parse("https://cdn.example.com:8443/a.mp4")!))
        XCTAssertFalse(a.hasSameOrigin(as: UpstreamURL.parse("https://other.example.com/a.mp4")!))
    }
}
