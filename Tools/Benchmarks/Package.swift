// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite: its own package so the main build stays light.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [.product(name: "Strata", package: "Strata")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]),
    ],
    swiftLanguageModes: [.v6]
)
