// swift-tools-version:6.0
import PackageDescription

// Benchmark-only: measures Konex's SSE parser side by side with the two Swift users have today, on the same bytes
// and the same chunking. Konex itself depends on nothing; this package is never a dependency of it.
let package = Package(
    name: "KonexPeers",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "Konex", path: "../.."),
        .package(url: "https://github.com/mattt/EventSource", exact: "1.1.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
    ],
    targets: [
        .executableTarget(
            name: "sse-peers",
            dependencies: [
                .product(name: "Konex", package: "Konex"),
                // EventSource 1.1.1 does not build on Linux (it calls URLSession.bytes(for:), which FoundationNetworking
                // lacks), so it is compared on Apple platforms only.
                .product(
                    name: "EventSource", package: "EventSource",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
