import EddyCore
import EddyDownloads
import EddyProxy
import Foundation
import XCTest

final class ConfigFileTests: XCTestCase {
    private func apply(_ yaml: String, to base: ProxyConfig = ProxyConfig()) throws -> ProxyConfig {
        try ConfigFile.apply(yaml: yaml, to: base)
    }

    private func assertConfigError(_ yaml: String, mentions word: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try apply(yaml), file: file, line: line) { error in
            guard let e = error as? ConfigFile.ConfigError else {
                return XCTFail("expected ConfigError, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(e.description.contains(word), "\(e.description) should mention \(word)", file: file, line: line)
        }
    }

    private func url(_ s: String) -> UpstreamURL { UpstreamURL.parse(s[...])! }

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
        XCTAssertNil(ProxyConfig().admin)
        assertConfigError("admin: \"nope\"\n", mentions: "nope")
    }

    func test_apply_logLevel_setsLevel() throws {
        XCTAssertEqual(try apply("log_level: trace\n").logLevel, "trace")
    }

    func test_apply_serverLimits_setLimits() throws {
        let c = try apply("""
            max_header_size: 32K
            max_uri_length: 4096
            max_connections: 100
            idle_timeout: 30
            """)
        XCTAssertEqual(c.limits.maxHeaderBytes, 32 << 10)
        XCTAssertEqual(c.limits.maxURILength, 4096)
        XCTAssertEqual(c.limits.maxConnections, 100)
        XCTAssertEqual(c.limits.idleTimeout, 30)
    }

    func test_apply_upstreamSettings_setTimeoutsAndPerHost() throws {
        let c = try apply("""
            connect_timeout: 5
            stall_timeout: 20
            max_upstream_per_host: 4
            """)
        XCTAssertEqual(c.upstreamTimeouts.connect, 5)
        XCTAssertEqual(c.upstreamTimeouts.stall, 20)
        XCTAssertEqual(c.maxUpstreamPerHost, 4)
    }

    func test_apply_offlineWait_takesFractionsOfASecond_andRefusesNonsense() throws {
        XCTAssertEqual(ProxyConfig().offlineWait, 1.5)
        XCTAssertEqual(try apply("offline_wait: 0.25").offlineWait, 0.25)
        XCTAssertEqual(try apply("offline_wait: 3").offlineWait, 3)
        for bad in ["offline_wait: 0", "offline_wait: -1", "offline_wait: soon", "offline_wait: 3600"] {
            XCTAssertThrowsError(try apply(bad), bad)
        }
    }

    func test_apply_earlyHints_isOffByDefault_andABoolean() throws {
        XCTAssertFalse(ProxyConfig().earlyHints)
        XCTAssertTrue(try apply("early_hints: true").earlyHints)
        XCTAssertFalse(try apply("early_hints: false").earlyHints)
        XCTAssertThrowsError(try apply("early_hints: sometimes"))
    }

    func test_apply_everyKeyTogether_allApplied() throws {
        let c = try apply("""
            listen: "0.0.0.0:80"
            cache_dir: /srv/eddy
            max_size: 2T
            origin: https://cdn.example.com
            origins:
              - prefix: /b/
                url: https://b.example.com
            allow_hosts: ["*.example.com"]
            access_log: "off"
            default_ttl: 60
            admin: ":9100"
            log_level: warning
            max_header_size: 8K
            max_uri_length: 2K
            max_connections: 10
            idle_timeout: 5
            connect_timeout: 2
            stall_timeout: 3
            max_upstream_per_host: 1
            """)
        XCTAssertEqual(c.listenHost, "0.0.0.0")
        XCTAssertEqual(c.listenPort, 80)
        XCTAssertEqual(c.cacheDir, "/srv/eddy")
        XCTAssertEqual(c.maxSize, 2 << 40)
        XCTAssertEqual(Set(c.routes.map(\.prefix)), ["/", "/b/"])
        XCTAssertEqual(c.allowHosts.map(\.description), ["*.example.com"])
        XCTAssertEqual(c.accessLog, "off")
        XCTAssertEqual(c.defaultTTL, 60)
        XCTAssertEqual(c.admin?.host, "127.0.0.1")
        XCTAssertEqual(c.admin?.port, 9100)
        XCTAssertEqual(c.logLevel, "warning")
        XCTAssertEqual(c.limits.maxHeaderBytes, 8 << 10)
        XCTAssertEqual(c.limits.maxURILength, 2 << 10)
        XCTAssertEqual(c.limits.maxConnections, 10)
        XCTAssertEqual(c.limits.idleTimeout, 5)
        XCTAssertEqual(c.upstreamTimeouts.connect, 2)
        XCTAssertEqual(c.upstreamTimeouts.stall, 3)
        XCTAssertEqual(c.maxUpstreamPerHost, 1)
    }

    // MARK: load

    func test_load_file_appliesSettings() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "listen: \"127.0.0.1:8181\"\ndefault_ttl: 5\n".write(toFile: path, atomically: true, encoding: .utf8)
        let c = try ConfigFile.load(path: path, into: ProxyConfig())
        XCTAssertEqual(c.listenPort, 8181)
        XCTAssertEqual(c.defaultTTL, 5)
    }

    func test_load_errors_namePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try ConfigFile.load(path: path, into: ProxyConfig())) { e in
            XCTAssertTrue("\(e)".contains("cannot read config file"))
        }
        try "typo_key: 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ConfigFile.load(path: path, into: ProxyConfig())) { e in
            XCTAssertTrue("\(e)".hasPrefix(path + ": "))
            XCTAssertTrue("\(e)".contains("typo_key"))
        }
        try "a: [\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ConfigFile.load(path: path, into: ProxyConfig())) { e in
            XCTAssertTrue("\(e)".contains("invalid YAML"))
        }
    }

    // MARK: route(spec:)

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

final class ConfigFileAccessLogTests: XCTestCase {
    func test_apply_unquotedOff_disablesAccessLog() throws {
        let c = try ConfigFile.apply(yaml: "access_log: off\n", to: ProxyConfig())
        XCTAssertEqual(c.accessLog, "off")
    }
}
