import EddyCore
import EddyDownloads
import EddyProxy
import Foundation
import XCTest

/// The forms flags and config keys share: `--origin` specs, listen addresses, host patterns.
final class ConfigFileParseTests: XCTestCase {
    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(s[...])! }

    func test_routeSpec_prefixEqualsURL_splitsAtFirstEquals() throws {
        XCTAssertEqual(try ConfigFile.route(spec: "/cdn1=https://cdn1.example.com/base"),
                       OriginRoute(prefix: "/cdn1/", base: url("https://cdn1.example.com/base")))
        XCTAssertEqual(try ConfigFile.route(spec: "/v/=http://v.example.com/a?x=1"),
                       OriginRoute(prefix: "/v/", base: url("http://v.example.com/a?x=1")))
    }

    func test_routeSpec_plainURL_isRootRoute() throws {
        XCTAssertEqual(try ConfigFile.route(spec: "https://cdn.example.com"),
                       OriginRoute(prefix: "/", base: url("https://cdn.example.com/")))
        // An "=" inside a URL's query does not make it a prefix spec.
        XCTAssertEqual(try ConfigFile.route(spec: "https://cdn.example.com/a?b=c"),
                       OriginRoute(prefix: "/", base: url("https://cdn.example.com/a?b=c")))
    }

    func test_routeSpec_badURL_isError() {
        XCTAssertThrowsError(try ConfigFile.route(spec: "/cdn1=cdn1.example.com"))
        XCTAssertThrowsError(try ConfigFile.route(spec: "cdn.example.com"))
        XCTAssertThrowsError(try ConfigFile.route(spec: "/cdn1"))
        XCTAssertThrowsError(try ConfigFile.route(spec: "https://user@cdn.example.com/"))
    }

    func test_routePrefixURL_prefixWithoutSlashes_isNormalized() throws {
        XCTAssertEqual(try ConfigFile.route(prefix: "cdn", url: "http://c.example.com").prefix, "/cdn/")
    }

    // MARK: parseListen

    func test_parseListen_hostPort_isSplit() throws {
        let (h, p) = try ConfigFile.parseListen("127.0.0.1:8080")
        XCTAssertEqual(h, "127.0.0.1")
        XCTAssertEqual(p, 8080)
        let (n, q) = try ConfigFile.parseListen("localhost:80")
        XCTAssertEqual(n, "localhost")
        XCTAssertEqual(q, 80)
    }

    func test_parseListen_portOnly_isLoopback() throws {
        let (h, p) = try ConfigFile.parseListen(":9000")
        XCTAssertEqual(h, "127.0.0.1")
        XCTAssertEqual(p, 9000)
    }

    func test_parseListen_bracketedIPv6_stripsBrackets() throws {
        let (h, p) = try ConfigFile.parseListen("[::1]:8080")
        XCTAssertEqual(h, "::1")
        XCTAssertEqual(p, 8080)
        let (any, q) = try ConfigFile.parseListen("[::]:443")
        XCTAssertEqual(any, "::")
        XCTAssertEqual(q, 443)
    }

    func test_parseListen_portBounds_zeroAndMaxAllowed() throws {
        XCTAssertEqual(try ConfigFile.parseListen("0.0.0.0:0").1, 0)
        XCTAssertEqual(try ConfigFile.parseListen("0.0.0.0:65535").1, 65535)
    }

    func test_parseListen_invalid_isError() {
        for s in ["", "8080", "localhost", "host:", "host:abc", "host:65536", "host:-1"] {
            XCTAssertThrowsError(try ConfigFile.parseListen(s), s) { e in
                XCTAssertTrue(e is ConfigFile.ConfigError)
            }
        }
    }

    // MARK: hostPattern

    func test_hostPattern_validOrInvalid_returnsPatternOrThrows() throws {
        XCTAssertEqual(try ConfigFile.hostPattern("*.example.com:443").port, 443)
        XCTAssertThrowsError(try ConfigFile.hostPattern(""))
        XCTAssertThrowsError(try ConfigFile.hostPattern("host:99999"))
    }
}
