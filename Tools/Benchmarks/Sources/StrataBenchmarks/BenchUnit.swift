import Foundation

/// One measured unit: a workload run by one subject (Strata or a peer), each repetition
/// in a fresh child process so that peak memory (its own `VmHWM`) is the unit's own.
///
/// A unit returns figures named `W<n>.<metric>`; the runner stores them as
/// `W<n>.<subject>.<metric>`, so one unit may feed several workloads (W1's Strata unit
/// also reports W5's compaction rate and W7's sizes).
struct BenchUnit: Sendable {
    enum Body: Sendable {
        /// Runs in this executable, in a child started with `--child <id>`.
        case swift(@Sendable (BenchEnvironment) throws -> [String: Double])
        /// Runs `peers/<script>` with the environment's Python, arguments first.
        case python(script: String, arguments: [String])
    }

    /// Unique, e.g. `w1-strata`; `--only` matches it or its workload (`W1`).
    var id: String
    var workload: String
    var subject: String
    /// Bulk units repeat `bulkRepetitions` times, others `repetitions`.
    var isBulk = false
    /// A smaller size for a peer too slow for the tier's (stated in the table).
    var scale: (@Sendable (Tier) -> Tier)?
    /// Why `scale` changes the size, for the table's note (default: the tier's size takes
    /// too long for this peer).
    var scaleReason: String?
    var body: Body

    init(_ id: String, _ workload: String, _ subject: String, isBulk: Bool = false,
         scale: (@Sendable (Tier) -> Tier)? = nil, scaleReason: String? = nil, _ body: Body) {
        self.id = id
        self.workload = workload
        self.subject = subject
        self.isBulk = isBulk
        self.scale = scale
        self.scaleReason = scaleReason
        self.body = body
    }

    func repetitions(_ tier: Tier) -> Int { isBulk ? tier.bulkRepetitions : tier.repetitions }
}

/// The subjects, in table column order.
enum Subject {
    static let strata = "strata"
    static let strataNoUndo = "strata-noundo"
    /// W1b's batch insert with automatic compaction off (the request alone).
    static let strataNoFold = "strata-nofold"
    /// W12's dictionary results (`fetchDictionaries`), beside its objects.
    static let strataDictionaries = "strata-dictionaries"
    /// W4x's read without prefetching (faults fired as touched), beside its prefetching one.
    static let strataFaults = "strata-faults"
    static let sqlite = "sqlite"
    static let grdbRecords = "grdb-records"
    static let grdbStatements = "grdb-statements"
    static let loro = "loro"

    static let columns: [(id: String, title: String)] = [
        (strata, "Strata"), (sqlite, "raw SQLite"), (grdbRecords, "GRDB records"),
        (grdbStatements, "GRDB statements"), (loro, "Loro"),
    ]

    /// How each subject stores data, for the table's settings line.
    static let settings: [(String, String)] = [
        ("Strata", "document store, SQLite WAL + synchronous=FULL, 64 MiB page cache (Strata's default); log segments LZ4"),
        ("raw SQLite", "C API, prepared statements, one transaction, WAL + synchronous=FULL, the same page cache"),
        ("GRDB", "DatabasePool (WAL) + synchronous=FULL, the same page cache; Codable records or prepared statements"),
        ("Loro", "Python loro, LoroMap per object in a LoroList; snapshot written with fsync; no SQLite"),
    ]
}
