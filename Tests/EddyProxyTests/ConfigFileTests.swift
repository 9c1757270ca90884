import EddyCore
import EddyDownloads
import EddyProxy
import Foundation
import XCTest

final class ConfigFileTests: XCTestCase {
    func apply(_ yaml: String, to base: ProxyConfig = ProxyConfig()) throws -> ProxyConfig {
        try ConfigFile.apply(yaml: yaml, to: base)
    }

    func assertConfigError(_ yaml: String, mentions word: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try apply(yaml), file: file, line: line) { error in
            guard let e = error as? ConfigFile.ConfigError else {
                return XCTFail("expected ConfigError, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(e.description.contains(word), "\(e.description) should mention \(word)", file: file, line: line)
        }
    }

    func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(s[...])! }

    // MARK: operations keys (issue 14)

    func test_operationsKeys_parseAndRefuseBadValues() throws {
        let c = try apply("admin_token: t0k\naccess_log_format: json\nlog_format: json\nlog_level: debug\n")
        XCTAssertEqual(c.adminToken, "t0k")
        XCTAssertEqual(c.accessLogFormat, .json)
        XCTAssertEqual(c.logFormat, "json")
        XCTAssertEqual(c.logLevel, "debug")
        assertConfigError("access_log_format: apache\n", mentions: "access_log_format")
        assertConfigError("log_format: xml\n", mentions: "log_format")
        assertConfigError("log_level: loud\n", mentions: "log_level")
    }

    // MARK: workers (issue 15)

    func test_workers_defaultIsOnePerCore_andNumbersOrAutoParse() throws {
        XCTAssertEqual(ProxyConfig().workers, 0, "the default is auto: one loop per core")
        XCTAssertEqual(try apply("workers: 3\n").workers, 3)
        XCTAssertEqual(try apply("workers: auto\n", to: try apply("workers: 3\n")).workers, 0)
        assertConfigError("workers: many\n", mentions: "workers")
    }

    // MARK: download_window (issue 31)

    func test_downloadWindow_parsesCrossesMidnightAndEmptyMeansAnyTime() throws {
        XCTAssertNil(ProxyConfig().downloadWindow)
        let c = try apply("download_window: \"22:00-06:00\"\n")
        XCTAssertEqual(c.downloadWindow?.description, "22:00-06:00")
        XCTAssertNil(try apply("download_window: \"\"\n", to: c).downloadWindow)
        assertConfigError("download_window: tonight\n", mentions: "download_window")
        assertConfigError("download_window: \"01:00-01:00\"\n", mentions: "download_window")
    }

    // MARK: cache_key (issue 31)

    func test_cacheKey_rulesByMappedPrefixHostOrURLPrefix() throws {
        let c = try apply("""
            cache_key:
              - { prefix: /cdn/, ignore_query: [Expires, Signature, Key-Pair-Id] }
              - { host: "*.akamaized.net", ignore_query: [hdnts] }
              - { url: "https://media.example.com/vod/", ignore_query: all }
            origins:
              - { prefix: /cdn/, url: "http://cdn.example.com/films" }
            """)
        XCTAssertEqual(c.cacheKeyRules.key(for: url("http://cdn.example.com/films/a.mp4?Signature=1&Expires=2&n=3")),
                       "http://cdn.example.com/films/a.mp4?n=3", "a mapped prefix is its origin's URL, wherever origins: is")
        XCTAssertEqual(c.cacheKeyRules.key(for: url("http://a.akamaized.net/x.ts?hdnts=1")), "http://a.akamaized.net/x.ts")
        XCTAssertEqual(c.cacheKeyRules.key(for: url("https://media.example.com/vod/x.ts?t=1")), "https://media.example.com/vod/x.ts")
        XCTAssertEqual(ProxyConfig().cacheKeyRules, CacheKeyRules(), "off by default")
        assertConfigError("cache_key:\n  - { prefix: /nowhere/, ignore_query: all }\n", mentions: "origins")
        assertConfigError("cache_key:\n  - { host: \"*.x.net\", ignore_query: some }\n", mentions: "ignore_query")
        assertConfigError("cache_key:\n  - { ignore_query: all }\n", mentions: "prefix, a host or a url")
        assertConfigError("cache_key:\n  - { host: a.net, ignore: all }\n", mentions: "unknown field")
    }

    // MARK: apply: empty and structure

    func test_apply_emptyDocument_keepsBase() throws {
        var base = ProxyConfig()
        base.listenPort = 1234
        base.cacheDir = "/base"
        for yaml in ["", "# only a comment\n", "\n\n"] {
            let c = try apply(yaml, to: base)
            XCTAssertEqual(c.listenPort, 1234, yaml)
            XCTAssertEqual(c.cacheDir, "/base", yaml)
        }
    }

    func test_apply_nonMappingRoot_isError() {
        assertConfigError("- a\n- b\n", mentions: "mapping")
        assertConfigError("just a string\n", mentions: "mapping")
    }

    func test_apply_invalidYAML_throws() {
        XCTAssertThrowsError(try apply("listen: [unclosed\n"))
    }

    func test_apply_unknownKey_isError() {
        assertConfigError("lisen: \"127.0.0.1:80\"\n", mentions: "lisen")
        assertConfigError("max_size: 1G\nbogus: 1\n", mentions: "unknown config key 'bogus'")
    }

    func test_apply_untouchedKeys_keepBaseValues() throws {
        var base = ProxyConfig()
        base.defaultTTL = 77
        base.maxUpstreamPerHost = 3
        let c = try apply("log_level: debug\n", to: base)
        XCTAssertEqual(c.defaultTTL, 77)
        XCTAssertEqual(c.maxUpstreamPerHost, 3)
        XCTAssertEqual(c.logLevel, "debug")
    }

    // MARK: apply: every key

    func test_apply_listen_setsHostAndPort() throws {
        let c = try apply("listen: \"0.0.0.0:9090\"\n")
        XCTAssertEqual(c.listenHost, "0.0.0.0")
        XCTAssertEqual(c.listenPort, 9090)
        let v6 = try apply("listen: \"[::]:8081\"\n")
        XCTAssertEqual(v6.listenHost, "::")
        XCTAssertEqual(v6.listenPort, 8081)
        let portOnly = try apply("listen: \":8082\"\n")
        XCTAssertEqual(portOnly.listenHost, "127.0.0.1")
        XCTAssertEqual(portOnly.listenPort, 8082)
    }

    func test_apply_badListen_isError() {
        assertConfigError("listen: \"localhost\"\n", mentions: "localhost")
        assertConfigError("listen: \"host:70000\"\n", mentions: "host:70000")
        assertConfigError("listen: [1, 2]\n", mentions: "listen")
    }

    func test_apply_cacheDir_setsDirectory() throws {
        XCTAssertEqual(try apply("cache_dir: /var/cache/eddy\n").cacheDir, "/var/cache/eddy")
    }

    func test_apply_maxSize_acceptsSizeStringOrInteger() throws {
        XCTAssertEqual(try apply("max_size: 512M\n").maxSize, 512 << 20)
        XCTAssertEqual(try apply("max_size: 10GiB\n").maxSize, 10 << 30)
        XCTAssertEqual(try apply("max_size: 1048576\n").maxSize, 1_048_576)
        XCTAssertEqual(try apply("max_size: 0\n").maxSize, 0)
    }

    func test_apply_memoryCache_sizeOrZero() throws {
        XCTAssertEqual(ProxyConfig().memoryCache, 32 << 20)
        XCTAssertEqual(try apply("memory_cache: 8M\n").memoryCache, 8 << 20)
        XCTAssertEqual(try apply("memory_cache: 0\n").memoryCache, 0)
        assertConfigError("memory_cache: much\n", mentions: "memory_cache")
    }

    func test_apply_badSize_isError() {
        assertConfigError("max_size: 12Q\n", mentions: "max_size")
        assertConfigError("max_size: lots\n", mentions: "max_size")
        assertConfigError("max_size: -1G\n", mentions: "max_size")
        assertConfigError("max_header_size: big\n", mentions: "max_header_size")
        assertConfigError("max_uri_length: 1.5K\n", mentions: "max_uri_length")
    }

    func test_apply_origin_appendsRootRoute() throws {
        var base = ProxyConfig()
        base.routes = [OriginRoute(prefix: "/a/", base: url("http://a.example.com/"))]
        let c = try apply("origin: https://cdn.example.com/base\n", to: base)
        XCTAssertEqual(c.routes, [OriginRoute(prefix: "/a/", base: url("http://a.example.com/")),
                                  OriginRoute(prefix: "/", base: url("https://cdn.example.com/base"))])
    }

    func test_apply_badOrigin_isError() {
        assertConfigError("origin: ftp://cdn.example.com/\n", mentions: "ftp://cdn.example.com/")
        assertConfigError("origin: not a url\n", mentions: "not a url")
    }

    func test_apply_origins_appendsEachRouteWithDefaultPrefix() throws {
        let c = try apply("""
            origins:
              - prefix: /cdn1
                url: https://cdn1.example.com/v1
              - url: http://root.example.com:8080
            """)
        XCTAssertEqual(c.routes, [OriginRoute(prefix: "/cdn1/", base: url("https://cdn1.example.com/v1")),
                                  OriginRoute(prefix: "/", base: url("http://root.example.com:8080"))])
    }

    func test_apply_badOrigins_isError() {
        assertConfigError("origins: https://cdn.example.com/\n", mentions: "origins")
        assertConfigError("origins:\n  - prefix: /x\n", mentions: "origins.url")
        assertConfigError("origins:\n  - prefix: /x\n    url: nope\n", mentions: "nope")
    }

    func test_apply_allowHosts_appendsPatterns() throws {
        let c = try apply("allow_hosts: [\"*.example.com\", \"127.0.0.1:8080\", \"[::1]:*\"]\n")
        XCTAssertEqual(c.allowHosts, [HostPattern("*.example.com")!, HostPattern("127.0.0.1:8080")!, HostPattern("[::1]")!])
    }

    func test_apply_badAllowHosts_isError() {
        assertConfigError("allow_hosts: \"*.example.com\"\n", mentions: "allow_hosts")
        assertConfigError("allow_hosts: [\"host:0\"]\n", mentions: "host:0")
        assertConfigError("allow_hosts: [1, 2]\n", mentions: "allow_hosts")
    }

    func test_apply_accessLog_setsPathOrOff() throws {
        XCTAssertEqual(try apply("access_log: /var/log/eddy/access.log\n").accessLog, "/var/log/eddy/access.log")
        XCTAssertEqual(try apply("access_log: \"off\"\n").accessLog, "off")
        XCTAssertEqual(try apply("access_log: \"-\"\n").accessLog, "-")
    }

    func test_apply_defaultTTL_acceptsIntegerOrNumericString() throws {
        XCTAssertEqual(try apply("default_ttl: 600\n").defaultTTL, 600)
        XCTAssertEqual(try apply("default_ttl: \"120\"\n").defaultTTL, 120)
    }

    func test_apply_badInteger_isError() {
        assertConfigError("default_ttl: soon\n", mentions: "default_ttl")
        assertConfigError("max_connections: 1.5\n", mentions: "max_connections")
        assertConfigError("idle_timeout: [1]\n", mentions: "idle_timeout")
    }

    func test_apply_admin_setsListener() throws {
        let c = try apply("admin: \"127.0.0.1:9100\"\n")
        XCTAssertEqual(c.admin?.host, "127.0.0.1")
        XCTAssertEqual(c.admin?.port, 9100)
        XCTAssertTrue(c.adminChosen, "a port asked for by name: taken, it stops the start")
        // On by default on loopback, where the CLI looks (issue 63); not chosen, so a taken
        // port is a warning.
        XCTAssertEqual(ProxyConfig().admin?.host, "127.0.0.1")
        XCTAssertEqual(ProxyConfig().admin?.port, 9090)
        XCTAssertFalse(ProxyConfig().adminChosen)
        for off in ["admin: off\n", "admin: \"off\"\n", "admin: false\n", "admin: OFF\n"] {
            let c = try apply(off)
            XCTAssertNil(c.admin, off)
            XCTAssertTrue(c.adminChosen, off)
        }
        assertConfigError("admin: \"nope\"\n", mentions: "nope")
        assertConfigError("admin: true\n", mentions: "admin")
    }

    func test_apply_logLevel_setsLevel() throws {
        XCTAssertEqual(try apply("log_level: trace\n").logLevel, "trace")
    }
}
