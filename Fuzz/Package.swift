// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzz targets for every parser that reads bytes from a peer or a file (scripts/fuzz builds and
// runs them). A package of its own: it is built only with `-sanitize=fuzzer,address -parse-as-library`, where
// libFuzzer supplies `main`, and it reaches the parsers' internals through `@testable import` (a debug build).
let package = Package(
    name: "KonexFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Konex", path: "..")],
    targets: [
        .executableTarget(
            name: "konex-fuzz",
            dependencies: [
                .product(name: "Konex", package: "Konex"), .product(name: "KonexTesting", package: "Konex"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
