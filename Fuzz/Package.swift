// swift-tools-version: 6.0
import PackageDescription

// libFuzzer harnesses for eddy's pure value modules. A separate package so the main build is
// untouched: Sources/EddyCore and Sources/EddyHLS here are symlinks to the real sources.
// Build and run with scripts/fuzz (it passes -sanitize=fuzzer,address and -parse-as-library).
let harnesses = ["FuzzRange", "FuzzHeaders", "FuzzURL", "FuzzPlaylist", "FuzzSelection", "FuzzRequestHead"]

let package = Package(
    name: "EddyFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.1.0"),
    ],
    targets: [
        .target(name: "EddyCore", dependencies: [
            .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
        ]),
        .target(name: "EddyHLS", dependencies: ["EddyCore"]),
    ] + harnesses.map { .executableTarget(name: $0, dependencies: ["EddyCore", "EddyHLS"]) },
    swiftLanguageModes: [.v5]
)
