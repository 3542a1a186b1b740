// swift-tools-version: 6.1
import PackageDescription

// PostgreSQL sharing (docs/POSTGRES.md) pulls in SwiftNIO, BoringSSL and PostgresNIO, which
// take longer to compile than everything else here together. It is opt-in: with
// STRATA_POSTGRES=1 in the environment the package also declares the StrataPostgres
// library, the `strata-postgres` tool and their tests; without it nothing of that stack is
// resolved or compiled, and `strata push postgres://…` says how to get the tool.
let postgres = ["1", "yes", "true"].contains(Context.environment["STRATA_POSTGRES"]?.lowercased() ?? "")

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .executable(name: "strata", targets: ["strata"]),
        .executable(name: "strata-log", targets: ["strata-log"]),
        .executable(name: "employees-example", targets: ["EmployeesExample"]),
        .executable(name: "background-import-example", targets: ["BackgroundImportExample"]),
        .executable(name: "staff-list-example", targets: ["StaffListExample"]),
        .executable(name: "outliner", targets: ["Outliner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ] + (postgres ? [.package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2")] : []),
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLZ4", path: "Sources/CLZ4", pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]),
        .target(
            name: "Strata",
            dependencies: [
                "CSQLite", "CLZ4",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: [.define("STRATA_INVARIANTS", .when(configuration: .debug))]),
        .target(
            name: "StrataToolSupport",
            dependencies: ["Strata", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "strata",
            dependencies: ["Strata", "StrataToolSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/strata"),
        .executableTarget(
            name: "strata-log",
            dependencies: ["Strata", "StrataToolSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/strata-log"),
        .executableTarget(
            name: "EmployeesExample", dependencies: ["Strata"], path: "Examples/Employees"),
        .executableTarget(
            name: "BackgroundImportExample", dependencies: ["Strata"], path: "Examples/BackgroundImport"),
        .executableTarget(
            name: "StaffListExample", dependencies: ["Strata"], path: "Examples/StaffList"),
        // The terminal outliner: its editor logic (headless, tested) and the terminal layer.
        .target(name: "OutlinerCore", dependencies: ["Strata"], path: "Examples/Outliner/Core"),
        .executableTarget(name: "Outliner", dependencies: ["OutlinerCore", "Strata"], path: "Examples/Outliner/App"),
        // Segment format v1 against v2 on W1-like rows (docs/FORMAT.md §13.6), release build.
        .executableTarget(name: "strata-segment-measure", dependencies: ["Strata"], path: "Tools/segment-measure"),
        .executableTarget(name: "strata-crash-writer", dependencies: ["Strata", "StrataTestSupport"], path: "Tests/CrashWriter"),
        .executableTarget(name: "strata-stress-writer", dependencies: ["Strata", "StrataTestSupport"], path: "Tests/StressWriter"),
        // Fuzzing (Tools/fuzz.sh, docs/RELIABILITY.md "Fuzzing"): the targets, one driver that
        // is libFuzzer's when built with -sanitize=fuzzer,address -DSTRATA_FUZZING, and the
        // tests that replay every input that ever crashed.
        .target(name: "StrataFuzzTargets", dependencies: ["Strata", "StrataToolSupport"], path: "Tests/Fuzz/Targets"),
        .executableTarget(name: "strata-fuzz", dependencies: ["StrataFuzzTargets"], path: "Tests/Fuzz/Driver"),
        .target(name: "StrataTestSupport", dependencies: ["Strata", "CSQLite"], path: "Tests/StrataTestSupport"),
        // The test targets depend on the programs they run, so `swift test` always builds
        // them and `builtExecutable(_:)` finds them in one place. The tests that break an
        // invariant on purpose need the internal checks (docs/INVARIANTS.md) compiled in.
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataTestSupport", "strata-crash-writer"],
                    resources: [.copy("Fixtures")],
                    swiftSettings: [.define("STRATA_INVARIANTS", .when(configuration: .debug))]),
        .testTarget(name: "StrataCLITests", dependencies: [
            "Strata", "StrataTestSupport", "strata", "strata-log", "strata-stress-writer",
            "EmployeesExample", "BackgroundImportExample", "StaffListExample",
        ]),
        .testTarget(name: "OutlinerTests", dependencies: ["OutlinerCore", "Strata", "Outliner"]),
        .testTarget(name: "StrataFuzzTests", dependencies: ["Strata", "StrataFuzzTargets"],
                    resources: [.copy("Crashers")]),
    ],
    swiftLanguageModes: [.v6]
)

if postgres {
    package.products += [
        // Documents shared through PostgreSQL: a library of its own, so the core library
        // gains no network dependency, and the tool `strata` hands postgres:// remotes to.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .executable(name: "strata-postgres", targets: ["strata-postgres"]),
    ]
    package.targets += [
        .target(
            name: "StrataPostgres",
            dependencies: ["Strata", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .executableTarget(
            name: "strata-postgres",
            dependencies: ["Strata", "StrataPostgres", "StrataToolSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/strata-postgres"),
        // One of the writer processes of the PostgreSQL many-writer test (docs/POSTGRES.md).
        .executableTarget(name: "strata-postgres-writer", dependencies: ["Strata", "StrataPostgres", "StrataTestSupport"],
                          path: "Tests/PostgresWriter"),
        // Against a real server: Tools/postgres-server starts one unless STRATA_POSTGRES_URL is set.
        .testTarget(name: "StrataPostgresTests", dependencies: [
            "Strata", "StrataPostgres", "StrataTestSupport", "strata-postgres-writer", "strata-postgres", "strata", "strata-log",
        ]),
    ]
}
