// swift-tools-version:6.1
import PackageDescription

// Benchmark-only: measures Konex side by side with what Swift users have today. sse-peers: Konex's SSE parser
// against two others on the same bytes and chunking. openapi-peers: a generated client's transport call over Konex
// against swift-openapi-urlsession and swift-openapi-async-http-client, on the same loopback server. Konex itself
// depends on nothing; this package is never a dependency of it.
let package = Package(
    name: "KonexPeers",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "Konex", path: "../..", traits: ["OpenAPI", "AsyncHTTPClient"]),
        .package(url: "https://github.com/mattt/EventSource", exact: "1.1.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", exact: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
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
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "openapi-peers",
            dependencies: [
                .product(name: "Konex", package: "Konex"),
                .product(name: "KonexOpenAPI", package: "Konex"),
                .product(name: "KonexAsyncHTTPClient", package: "Konex"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
