import EddyCore
import EddyDownloads
import EddyProxy
import Foundation
import XCTest

/// The keys for limits, upstream settings and downloads, all of them at once, and files on disk.
extension ConfigFileTests {
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
}
