// swift-tools-version: 6.0
import PackageDescription

// libFuzzer harnesses for eddy's pure value modules. A separate package so the main build is
// untouched: Sources/EddyCore and Sources/EddyHLS here are symlinks to the real sources.
// Build and run with scripts/fuzz (it passes -sanitize=fuzzer,address and -parse-as-library).
let harnesses = ["FuzzRange", "FuzzHeaders", "FuzzURL", "FuzzPlaylist", "FuzzSelection"]

let package = Package(
    name: "EddyFuzz",
    targets: [
        .target(name: "EddyCore"),
        .target(name: "EddyHLS", dependencies: ["EddyCore"]),
    ] + harnesses.map { .executableTarget(name: $0, dependencies: ["EddyCore", "EddyHLS"]) },
    swiftLanguageModes: [.v5]
)
