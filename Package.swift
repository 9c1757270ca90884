// swift-tools-version: 6.0
import PackageDescription

// Layers, bottom to top (dependencies only point down):
//   C shims (CLibevent, CCurl, CSQLite, CSystem)  -> no logic, only what Swift cannot import directly
//   EddyCore   pure values: ranges, range sets, cache keys, URL mapping, freshness; no I/O
//   EddyHLS    pure HLS playlist model: parse, classify, rewrite URIs byte-exactly; no I/O
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
        .target(name: "CLibevent", linkerSettings: [.linkedLibrary("event"), .linkedLibrary("event_pthreads")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]), // libcurl is opened at run time (CCurl.h)
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CSystem", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "EddyCore", dependencies: [
            .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
        ]),
        .target(name: "EddyHLS", dependencies: ["EddyCore"]),
        .target(name: "EddyLoop", dependencies: ["CLibevent", "CCurl", "EddyCore"]),
        .target(name: "EddyCache", dependencies: ["CSQLite", "CSystem", "EddyCore", .product(name: "Logging", package: "swift-log")]),
        .target(name: "EddyResources", dependencies: [
            "EddyCore", "EddyHLS", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyDownloads", dependencies: [
            "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyServing", dependencies: [
            "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "EddyAdmin", dependencies: [
            "EddyDownloads", "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache",
        ]),
        .target(name: "EddyProxy", dependencies: [
            "EddyServing", "EddyAdmin", "EddyDownloads", "EddyResources", "EddyCore", "EddyHLS", "EddyLoop", "EddyCache", "CLibevent", "CCurl",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
        ]),
        .executableTarget(name: "eddy", dependencies: [
            "EddyProxy", "EddyDownloads", "EddyCore", "EddyCache", "EddyHLS", "EddyLoop",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The HTTP layer alone, against nginx (bench/wire.py); not part of eddy.
        .executableTarget(name: "wirebench", dependencies: ["EddyLoop", "EddyCore"]),
        .testTarget(name: "EddyCoreTests", dependencies: ["EddyCore"]),
        .testTarget(name: "EddyHLSTests", dependencies: ["EddyHLS", "EddyCore"]),
        .testTarget(name: "EddyCacheTests", dependencies: ["EddyCache", "EddyCore"]),
        .testTarget(name: "EddyResourcesTests", dependencies: ["EddyResources", "EddyCore", "EddyCache"]),
        .testTarget(name: "EddyDownloadsTests", dependencies: ["EddyDownloads", "EddyResources", "EddyCore", "EddyHLS"]),
        .testTarget(name: "EddyServingTests", dependencies: ["EddyServing", "EddyResources", "EddyCore"]),
        .testTarget(name: "EddyProxyTests", dependencies: ["EddyProxy", "EddyResources", "EddyDownloads", "EddyCore"]),
        .testTarget(name: "EddyLoopTests", dependencies: ["EddyLoop", "EddyCore", "CLibevent"]),
    ],
    swiftLanguageModes: [.v5]
)
