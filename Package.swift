// swift-tools-version: 6.0
import PackageDescription

// Layers, bottom to top (dependencies only point down):
//   C shims (CLibevent, CCurl, CSQLite, CSystem, CLibXML2, COpenSSL)  -> no logic, only what Swift cannot import directly
//   EddyCore   pure values: ranges, range sets, cache keys, URL mapping, freshness; no I/O
//   EddyHLS    pure HLS playlist model: parse, classify, rewrite URIs byte-exactly; no I/O
//   EddyDASH   MPEG-DASH manifests (MPD): recognise, parse with libxml2 (no DTDs), rewrite URLs; no I/O
//   EddyTLS    OpenSSL for client connections: contexts, SNI, one connection's reads and writes
//   EddyLoop   event-loop wrappers: the HTTP/1.1 server (eddy's own, on libevent), timers, the libcurl multi driver
//   EddyCache  the persistent sparse cache: index (SQLite WAL), data files, store
//   EddyResources  one home per loop for its resources: coordinators, fills, playlists and
//                  prefetch, origin health, the upstream client, the memory tier
//   EddyDownloads  offline downloads: the engine, plans, jobs and their database, which reach
//                  resources only through their homes (`ResourceHomes`)
//   EddyServing    each loop's serving side (`Home`): cache exchanges, published hits,
//                  pass-through and tunnels, on EddyResources only
//   EddyAdmin  the admin listener's API (resources, downloads) and the dashboard
//   EddyProxy  the composition root: `Proxy`, workers, config, reload, drain, access log, the
//              offline URL (serving, downloads and admin meet only here)
//   eddy       the command line
let package = Package(
    name: "eddy",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "eddy", targets: ["eddy"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        // RFC 8941/9651 Structured Field parsing (targeted cache-control fields, RFC 9213).
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.1.0"),
    ],
    targets: [
        // The C libraries are linked from their static archives (`-l:libX.a`, Debian's -dev packages):
        // each shared one cost every start of every command its loading, its relocations and a
        // symbol lookup per first call (start to first hit 18.5 -> 16.5 ms against nginx's 13.5,
        // bench/RESULTS.md, issue 33). libevent_core: eddy uses none of evhttp, evdns or evrpc.
        .target(name: "CLibevent", linkerSettings: [.linkedLibrary(":libevent_pthreads.a"), .linkedLibrary(":libevent_core.a")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]), // libcurl is opened at run time (CCurl.h)
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary(":libsqlite3.a")]),
        .target(name: "CSystem", linkerSettings: [.linkedLibrary(":libz.a")]),
        // libxml2 is opened at run time (CLibXML2.h); only its headers are needed to build.
        // libssl is opened at run time, only when a TLS listener is configured (COpenSSL.h).
        .target(name: "COpenSSL", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CLibXML2", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "EddyCore", dependencies: [
            .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
        ]),
        .target(name: "EddyHLS", dependencies: ["EddyCore"]),
        .target(name: "EddyDASH", dependencies: ["CLibXML2", "EddyCore"],
                swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        .target(name: "EddyTLS", dependencies: ["COpenSSL", "EddyCore"]),
        .target(name: "EddyLoop", dependencies: ["CLibevent", "CCurl", "EddyCore", "EddyTLS"]),
        .target(name: "EddyCache", dependencies: ["CSQLite", "CSystem", "EddyCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "EddyResources", dependencies: [
            "EddyCore", "EddyHLS", "EddyDASH", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyDownloads", dependencies: [
            "EddyResources", "EddyCore", "EddyHLS", "EddyDASH", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyServing", dependencies: [
            "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyAdmin", dependencies: [
            "EddyDownloads", "EddyResources", "EddyCore", "EddyHLS", "EddyDASH", "EddyLoop", "EddyCache",
        ]),
        .target(name: "EddyProxy", dependencies: [
            "EddyServing", "EddyAdmin", "EddyDownloads", "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache", "EddyTLS", "CLibevent", "CCurl",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
        ]),
        .executableTarget(name: "eddy", dependencies: [
            "EddyProxy", "EddyDownloads", "EddyCore", "EddyCache", "EddyHLS", "EddyLoop",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
            // The static Swift runtime and Foundation need libstdc++; `link/libstdc++.so` is a linker
            // script that names its static archive, found first on this path (the same symbol
            // lookups as above; only this executable, so a test binary keeps the one libstdc++
            // its dynamic Swift runtime loads).
            linkerSettings: [.unsafeFlags(["-L\(Context.packageDirectory)/link"], .when(platforms: [.linux]))]),
        // The HTTP layer alone, against nginx (bench/wire.py); not part of eddy.
        .executableTarget(name: "wirebench", dependencies: ["EddyLoop", "EddyCore"]),
        // Helpers the test targets share (a seeded generator); not part of eddy.
        .target(name: "EddyTestSupport", path: "Tests/EddyTestSupport"),
        .testTarget(name: "EddyCoreTests", dependencies: ["EddyCore", "EddyTestSupport"]),
        .testTarget(name: "EddyHLSTests", dependencies: ["EddyHLS", "EddyCore", "EddyTestSupport"]),
        .testTarget(name: "EddyDASHTests", dependencies: ["EddyDASH", "EddyCore"],
                    swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        .testTarget(name: "EddyCacheTests", dependencies: ["EddyCache", "EddyCore"]),
        .testTarget(name: "EddyResourcesTests", dependencies: ["EddyResources", "EddyCore", "EddyCache"]),
        .testTarget(name: "EddyDownloadsTests", dependencies: ["EddyDownloads", "EddyResources", "EddyCore", "EddyHLS", "EddyDASH"]),
        .testTarget(name: "EddyServingTests", dependencies: ["EddyServing", "EddyResources", "EddyCore"]),
        .testTarget(name: "EddyProxyTests", dependencies: ["EddyProxy", "EddyTLS", "EddyAdmin", "EddyResources", "EddyDownloads", "EddyCore"]),
        .testTarget(name: "EddyLoopTests", dependencies: ["EddyLoop", "EddyCore", "CLibevent"]),
        // `eddy serve`'s fast argument path against ArgumentParser (the executable target, tested).
        .testTarget(name: "EddyCommandTests", dependencies: ["eddy", "EddyTestSupport"]),
    ],
    swiftLanguageModes: [.v5]
)
