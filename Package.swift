// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// PostgreSQL sharing (docs/POSTGRES.md) pulls in SwiftNIO, BoringSSL and PostgresNIO, which
// take longer to compile than everything else here together. It is opt-in: with
// STRATA_POSTGRES=1 in the environment the package also declares the StrataPostgres
// library, the `strata-postgres` tool and their tests; without it nothing of that stack is
// resolved or compiled, and `strata push postgres://…` says how to get the tool.
let postgres = enabled("STRATA_POSTGRES")
// The benchmark suite (Tools/Benchmarks, docs/BENCHMARKS.md) measures Strata against GRDB.swift
// and raw SQLite; with STRATA_BENCHMARKS=1 the package declares it and its GRDB dependency.
let benchmarks = enabled("STRATA_BENCHMARKS")
// The local inspector (docs/INSPECTOR.md) serves a web app over Hummingbird and SwiftNIO; with
// STRATA_INSPECTOR=1 the package declares it, its tool `strata-inspector` and its tests, so the
// core library and the default tools never resolve or compile an HTTP stack.
let inspector = enabled("STRATA_INSPECTOR")

// CI's sanitizer builds (.ci/run, docs/RELIABILITY.md "Sanitizers") compile only the test
// suites where AddressSanitizer and ThreadSanitizer can find something. SwiftPM builds every
// test target it knows, so STRATA_SANITIZER_SUITES=address declares just the suites below
// (threads, the store and its log, the codecs) with the CLI's process tests and the fuzz
// seed replays; =thread, the suites that run several threads alone (the rest is one thread,
// and the tools share with each other only a file, which ThreadSanitizer does not see).
let sanitizerSuites = Context.environment["STRATA_SANITIZER_SUITES"].flatMap { $0.isEmpty ? nil : $0 }
let sanitizesProcesses = sanitizerSuites != "thread"
// Several threads at once: both sanitizers.
let concurrentStrataTests = [
    "ContextConcurrency", "DocumentConcurrency", "AutomaticMerging", "RemoteChange", "WriterCollision",
    "OpeningBesideCompaction", "QueryGeneration", "MergeNotification", "PersistentContainer", "UndoEvent",
    "UndoGroupingContract", "SaveRollbackReset", "ObjectIdentity", "ChangeTracking", "FetchedResultsController", "Sync",
]
// One thread: AddressSanitizer only.
let storageStrataTests = [
    // The store and its log.
    "DocumentCompaction", "DocumentCorruption", "DocumentCrash", "DocumentFile", "DocumentFolding",
    "DocumentFormat", "DocumentIntegrity", "DocumentRoundTrip", "DocumentUndo", "LogTables", "StreamingReplay",
    "UpdateReplay", "FaultInjection", "FaultRecovery", "SQLiteConnection", "InMemoryStoreAtomicity",
    "RevertPrecondition", "ObjectIDTable", "ReadStatementCount", "ReadPathOverlay", "BatchedStoreRead",
    // The codecs (unsafe pointers and bytes).
    "SegmentByteCodec", "SegmentCodec", "SegmentFuzz", "SegmentGolden", "SegmentHostileCounts",
    "SegmentMalformed", "SegmentSplit", "SegmentV2Golden", "SegmentV2Seed", "SegmentV2", "SegmentV3Golden", "SegmentV4Golden",
    "SegmentV5Golden", "SegmentV5", "TextDocumentPacking", "GroupRun",
    "LZ4Frame", "JSONValue", "ModelJSON",
].map { $0 + "Tests.swift" } + ["SQLTranslationTestSupport.swift", "SegmentTestSupport.swift", "SegmentV2TestSupport.swift",
                                 "ReadPathTestSupport.swift"]
let sanitizedStrataTests = concurrentStrataTests.map { $0 + "Tests.swift" } + (sanitizesProcesses ? storageStrataTests : []) + [
    "TestSupport.swift", "BatchTestSupport.swift", "CoreTestSupport.swift", "DerivedAttributeSupport.swift",
    "DocumentTestSupport.swift", "FaultTestSupport.swift", "FetchEquivalenceSupport.swift", "FetchTestSupport.swift",
    "FetchedResultsTestSupport.swift", "MigrationTestSupport.swift", "ModelTestSupport.swift", "TextTestSupport.swift",
    // Where QueryGenerationTests' fetch helpers live.
    "ComputedFetchTests.swift",
]

func enabled(_ variable: String) -> Bool {
    ["1", "yes", "true"].contains(Context.environment[variable]?.lowercased() ?? "")
}

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
        // Entities declared as Swift classes (`@Entity`): a library of its own, so an app
        // that does not use the macros compiles no swift-syntax.
        .library(name: "StrataModels", targets: ["StrataModels"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The compiler's own syntax library, for the macros of StrataModels only; 603 is
        // Swift 6.3's.
        .package(url: "https://github.com/swiftlang/swift-syntax", "603.0.1"..<"604.0.0"),
    ] + (postgres ? [.package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2")] : [])
      + (benchmarks ? [.package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0")] : [])
      + (inspector ? [.package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1")] : []),
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLZ4", path: "Sources/CLZ4", pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]),
        // The storage layer: SQLite, LZ4 frames, the byte codecs, StrataError and the lock.
        // It names no model or object type, and the compiler keeps it so: it cannot see
        // Strata, which depends on it and re-exports it (Sources/Strata/Exports.swift).
        .target(name: "StrataStorage", dependencies: ["CSQLite", "CLZ4"]),
        .target(
            name: "Strata",
            dependencies: [
                "StrataStorage",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: [.define("STRATA_INVARIANTS", .when(configuration: .debug))]),
        // `@Entity` and its property macros: the compiler plugin (swift-syntax) and the
        // library that declares the macros and re-exports Strata.
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]),
        .target(name: "StrataModels", dependencies: ["Strata", "StrataMacros"]),
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
            name: "EmployeesExample", dependencies: ["Strata", "StrataModels"], path: "Examples/Employees"),
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
                    sources: sanitizerSuites != nil ? sanitizedStrataTests : nil,
                    resources: [.copy("Fixtures")],
                    swiftSettings: [.define("STRATA_INVARIANTS", .when(configuration: .debug))]),
        .testTarget(name: "StrataCLITests", dependencies: [
            "Strata", "StrataTestSupport", "strata", "strata-log", "strata-stress-writer",
            "EmployeesExample", "BackgroundImportExample", "StaffListExample",
        ]),
        // The macro tests; they also run `strata codegen --style macro` and type-check its
        // classes with the macro plugin.
        .testTarget(name: "StrataModelsTests", dependencies: [
            "StrataModels", "StrataMacros", "StrataTestSupport", "strata",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
        ]),
        .testTarget(name: "StrataFuzzTests", dependencies: ["Strata", "StrataFuzzTargets"],
                    resources: [.copy("Crashers")]),
    ],
    swiftLanguageModes: [.v6]
)

if sanitizerSuites == nil {
    package.targets.append(.testTarget(name: "OutlinerTests", dependencies: ["OutlinerCore", "Strata", "Outliner"]))
}
if !sanitizesProcesses {
    package.targets.removeAll { $0.name == "StrataCLITests" || $0.name == "StrataFuzzTests" }
}
// A sanitized build compiles only what its suites run: no terminal app or measuring tool,
// and under ThreadSanitizer none of the tools the process tests spawn (the macros too: only
// the employees example among those tools declares its classes with them).
if sanitizerSuites != nil {
    var unused: Set<String> = ["Outliner", "OutlinerCore", "strata-segment-measure", "StrataModelsTests"]
    var unusedProducts: Set<String> = ["outliner", "StrataModels"]
    if !sanitizesProcesses {
        unused.formUnion(["strata", "strata-log", "StrataToolSupport", "EmployeesExample", "BackgroundImportExample",
                          "StaffListExample", "strata-stress-writer", "StrataFuzzTargets", "strata-fuzz",
                          "StrataMacros", "StrataModels"])
        unusedProducts.formUnion(["strata", "strata-log", "employees-example", "background-import-example", "staff-list-example"])
    }
    package.targets.removeAll { unused.contains($0.name) }
    package.products.removeAll { unusedProducts.contains($0.name) }
}
// CI's fuzzing step (docs/RELIABILITY.md, "Fuzzing") links the AddressSanitizer tree's
// driver with libFuzzer, so that no third tree compiles Strata again: only the driver is
// instrumented for coverage, which shows every target still runs under libFuzzer from its
// seeds; Tools/fuzz.sh's own build (.build-fuzz) instruments everything for the long runs.
if sanitizerSuites == "address", let driver = package.targets.first(where: { $0.name == "strata-fuzz" }) {
    driver.swiftSettings = [.unsafeFlags(["-sanitize=fuzzer"]), .define("STRATA_FUZZING")]
    driver.linkerSettings = [.unsafeFlags(["-sanitize=fuzzer"])]
}

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

if inspector {
    package.products.append(.executable(name: "strata-inspector", targets: ["strata-inspector"]))
    package.targets += [
        // What the inspector shows, as JSON: no HTTP in it, so its tests need no server.
        .target(name: "StrataInspectorCore", dependencies: ["Strata", "StrataToolSupport"],
                path: "Sources/StrataInspectorCore"),
        // The HTTP routes and the web app's files (plain HTML, CSS and JavaScript, no build step).
        .target(
            name: "StrataInspector",
            dependencies: ["StrataInspectorCore", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Sources/StrataInspector",
            resources: [.copy("WebApp")]),
        // A postgres:// document too when the PostgreSQL stack is declared (STRATA_POSTGRES=1
        // as well); an inspector-only build compiles none of it (docs/INSPECTOR.md).
        .executableTarget(
            name: "strata-inspector",
            dependencies: ["StrataInspector", "StrataInspectorCore", "StrataToolSupport",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
                + (postgres ? ["StrataPostgres"] : []),
            path: "Tools/strata-inspector",
            swiftSettings: postgres ? [.define("STRATA_INSPECTOR_POSTGRES")] : []),
        .testTarget(name: "StrataInspectorTests", dependencies: [
            "Strata", "StrataInspectorCore", "StrataTestSupport", "strata-inspector", "strata",
        ] + (postgres ? ["strata-postgres", "StrataPostgres"] : []),
        swiftSettings: postgres ? [.define("STRATA_INSPECTOR_POSTGRES")] : []),
    ]
}

if benchmarks {
    package.products.append(.executable(name: "strata-benchmarks", targets: ["StrataBenchmarks"]))
    package.targets += [
        // SQLite with <malloc.h>, for the W1 memory breakdown.
        .systemLibrary(name: "CSQLiteBench", path: "Tools/Benchmarks/Sources/CSQLiteBench", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: ["Strata", "CSQLiteBench", "CLZ4", .product(name: "GRDB", package: "GRDB.swift")]
                + (postgres ? ["StrataPostgres"] : [])
                // The inspector's requests on big documents (`strata-benchmarks inspector`).
                + (inspector ? ["StrataInspectorCore"] : []),
            path: "Tools/Benchmarks/Sources/StrataBenchmarks",
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
                + (postgres ? [.define("STRATA_BENCH_POSTGRES")] : [])
                + (inspector ? [.define("STRATA_BENCH_INSPECTOR")] : [])),
    ]
}

// Programs and test bundles link with lld, which every Swift toolchain for Linux ships beside
// clang: the test bundle (190 MB with debug information) links in under half gold's time,
// in every build tree (docs/RELIABILITY.md, "CI's budget"). The library targets carry no
// flag, so a package depending on Strata links as it chooses.
for target in package.targets where target.type == .executable || target.type == .test {
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-use-ld=lld"])]
}
