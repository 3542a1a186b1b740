// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite: its own package so the main build stays light.
// Peers measured in the same run: raw SQLite (C API), GRDB.swift, and Loro (Python, peers/).
// StrataPostgres: W11's writers share a PostgreSQL document (so build with STRATA_POSTGRES=1,
// which `run` sets; docs/POSTGRES.md).
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLiteBench", path: "Sources/CSQLiteBench", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLZ4Bench", path: "Sources/CLZ4Bench", pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench", "CLZ4Bench",
            ],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]),
    ],
    swiftLanguageModes: [.v6]
)
