// swift-tools-version:6.0
import PackageDescription

// The manifest Swift 6.0 reads (6.1 and later read Package.swift). Package traits need 6.1, so Swift 6.0 users get the
// core without the optional AsyncHTTPClient transport.
//
// Konex depends on nothing beyond the toolchain: Foundation, Dispatch, Testing, XCTest. The floor (macOS 13, iOS 16,
// tvOS 16, watchOS 9, visionOS 1) is what Clock and Duration need; APPLE-PLATFORMS.md lists the audit behind it.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "Konex",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Konex", targets: ["Konex"]),
        .library(name: "KonexTesting", targets: ["KonexTesting"]),
        .executable(name: "konex-tour", targets: ["konex-tour"]),
        .executable(name: "konex-bench", targets: ["konex-bench"]),
        .executable(name: "konex-fixtures", targets: ["konex-fixtures"]),
    ],
    targets: [
        .target(name: "Konex", swiftSettings: strict),
        .target(name: "KonexTesting", dependencies: ["Konex"], swiftSettings: strict),
        .executableTarget(
            name: "konex-tour", dependencies: ["Konex", "KonexTesting"], path: "Playgrounds/KonexTour",
            exclude: ["Fixtures", "Recorded"], swiftSettings: strict),
        .executableTarget(name: "konex-fixtures", dependencies: ["KonexTesting"], swiftSettings: strict),
        .executableTarget(
            name: "konex-bench", dependencies: ["Konex", "KonexTesting"], path: "Benchmarks/KonexBench",
            swiftSettings: strict),
        // What the test targets share: error capture that compiles with Swift 6.0's Testing, a misbehaving socket server.
        .target(name: "TestSupport", dependencies: ["Konex"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "KonexTests", dependencies: ["Konex", "KonexTesting", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "KonexTestingTests", dependencies: ["Konex", "KonexTesting", "TestSupport"],
            exclude: ["Readme/Fixtures"],  // the README's own example folder, read from #filePath
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests", dependencies: ["Konex", "KonexTesting", "TestSupport"], swiftSettings: strict),
    ]
)
