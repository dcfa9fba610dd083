// swift-tools-version:6.1
import PackageDescription

// Konex depends on nothing beyond the toolchain: Foundation, Dispatch, Testing, XCTest. The floor (macOS 13, iOS 16,
// tvOS 16, watchOS 9, visionOS 1) is what Clock and Duration need; APPLE-PLATFORMS.md lists the audit behind it.
//
// Optional power for servers lives behind package traits (SE-0450), all off by default: an app that depends on Konex
// resolves no package at all (scripts/trait-check proves it). `traits: ["AsyncHTTPClient"]` on the dependency adds
// the KonexAsyncHTTPClient transport over swift-server/async-http-client. Swift 6.0 reads Package@swift-6.0.swift.
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
        .library(name: "KonexAsyncHTTPClient", targets: ["KonexAsyncHTTPClient"]),
        .library(name: "KonexTracing", targets: ["KonexTracing"]),
        .library(name: "KonexMetrics", targets: ["KonexMetrics"]),
        .library(name: "KonexOpenAPI", targets: ["KonexOpenAPI"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description:
                "KonexAsyncHTTPClient: transports over swift-server/async-http-client and SwiftNIO's WebSocket codec, for servers"
        ),
        .trait(
            name: "Tracing",
            description:
                "KonexTracing: a span per request over apple/swift-distributed-tracing, W3C trace context injected"
        ),
        .trait(
            name: "Metrics",
            description:
                "KonexMetrics: request durations, in-flight requests, retries, cache hits over apple/swift-metrics"
        ),
        .trait(
            name: "OpenAPI",
            description:
                "KonexOpenAPI: a swift-openapi-runtime ClientTransport over a KonexClient, so generated clients run through Konex"
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // Resolved only when the AsyncHTTPClient trait is on.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        // Only konex-bench uses it: the raw WebSocket client Konex's WebSocket is measured against.
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.0"),
        // Resolved only when the Tracing trait (or AsyncHTTPClient, which uses it too) is on.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
        // Resolved only when the Metrics trait is on.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        // Resolved only when the OpenAPI trait is on.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "Konex", swiftSettings: strict),
        .systemLibrary(name: "CKonexZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "KonexTesting", dependencies: ["Konex"], swiftSettings: strict),
        .target(
            name: "KonexAsyncHTTPClient",
            dependencies: [
                "Konex",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])
                ),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                // NIOWebSocketTransport: WebSockets on Linux, where libcurl has no ws/wss.
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                // permessage-deflate: the system's zlib, no package.
                .target(name: "CKonexZlib", condition: .when(traits: ["AsyncHTTPClient"])),
                // AsyncHTTPClient traces too: the transport makes sure one layer, not two, writes the trace context.
                .product(
                    name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["AsyncHTTPClient"])
                ),
            ],
            swiftSettings: strict),
        .target(
            name: "KonexTracing",
            dependencies: [
                "Konex",
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
            ],
            swiftSettings: strict),
        .target(
            name: "KonexMetrics",
            dependencies: [
                "Konex", .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "konex-tour",
            dependencies: ["Konex", "KonexTesting", "KonexAsyncHTTPClient", "KonexOpenAPI", "PostsAPI"],
            path: "Playgrounds/KonexTour",
            exclude: ["Fixtures", "Recorded"], swiftSettings: strict),
        // A command-line tool calling an API through Konex over AsyncHTTPClient, no server framework (needs the trait).
        .executableTarget(
            name: "konex-server-example", dependencies: ["Konex", "KonexAsyncHTTPClient"],
            path: "Playgrounds/ServerTool", swiftSettings: strict),
        // The Autobahn|Testsuite echo client (scripts/autobahn runs the suite against it; needs the trait).
        .executableTarget(
            name: "konex-autobahn", dependencies: ["Konex", "KonexAsyncHTTPClient"], path: "Conformance/Autobahn",
            swiftSettings: strict),
        .executableTarget(name: "konex-fixtures", dependencies: ["KonexTesting"], swiftSettings: strict),
        .target(
            name: "KonexOpenAPI",
            dependencies: [
                "Konex",
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ],
            swiftSettings: strict),
        // A client generated by swift-openapi-generator from Playgrounds/OpenAPIExample/openapi.yaml (its README says
        // how to regenerate it), for KonexOpenAPITests and the tour.
        .target(
            name: "PostsAPI",
            dependencies: [
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Playgrounds/OpenAPIExample/Sources/PostsAPI", swiftSettings: strict),
        // With --traits AsyncHTTPClient it adds the four-way cases (raw AHC, Konex/AHC, raw and Konex URLSession); with
        // --traits Tracing,Metrics the telemetry overhead cases.
        .executableTarget(
            name: "konex-bench",
            dependencies: [
                "Konex", "KonexTesting", "KonexAsyncHTTPClient", "KonexTracing", "KonexMetrics", "TestSupport",
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])
                ),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "WebSocketKit", package: "websocket-kit", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ],
            path: "Benchmarks/KonexBench", swiftSettings: strict),
        // What the test targets share: error capture that compiles with Swift 6.0's Testing, a misbehaving socket server.
        .target(
            name: "TestSupport",
            dependencies: [
                "Konex",
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
            ],
            path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "KonexTests", dependencies: ["Konex", "KonexTesting", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "KonexTestingTests", dependencies: ["Konex", "KonexTesting", "TestSupport"],
            exclude: ["Readme/Fixtures"],  // the README's own example folder, read from #filePath
            resources: [.copy("Fixtures")],
            swiftSettings: strict),
        // Interceptors written against the public API alone: no `@testable import`, no TestSupport.
        .testTarget(name: "KonexPublicAPITests", dependencies: ["Konex", "KonexTesting"], swiftSettings: strict),
        // KONEX_TRANSPORT=ahc with --traits AsyncHTTPClient runs these suites over AsyncHTTPClientTransport too.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Konex", "KonexTesting", "KonexAsyncHTTPClient", "KonexTracing", "TestSupport",
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
                // wss against the test server's own certificate.
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            swiftSettings: strict),
        // Run with `--traits Tracing,Metrics` (scripts/test); without the traits they hold no test.
        .testTarget(
            name: "KonexTelemetryTests",
            dependencies: [
                "Konex", "KonexTesting", "KonexTracing", "KonexMetrics", "TestSupport",
                .product(
                    name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])
                ),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
            ],
            swiftSettings: strict),
        // Runs with `--traits OpenAPI` (scripts/test); without the trait it holds no test.
        .testTarget(
            name: "KonexOpenAPITests",
            dependencies: [
                "Konex", "KonexTesting", "KonexOpenAPI", "PostsAPI", "TestSupport", "KonexAsyncHTTPClient",
                .product(
                    name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ],
            exclude: ["Fixtures"], swiftSettings: strict),
        // Runs with `--traits AsyncHTTPClient` (scripts/test); without the trait it holds no test.
        .testTarget(
            name: "KonexAsyncHTTPClientTests",
            dependencies: ["Konex", "KonexTesting", "KonexAsyncHTTPClient", "TestSupport"], swiftSettings: strict),
    ]
)
