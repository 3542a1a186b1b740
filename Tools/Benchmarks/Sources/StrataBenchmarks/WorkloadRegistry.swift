import Foundation

/// Every benchmark unit, in run order. To add a workload: write its file and add its
/// units here (one line each), and its table rows in `ReportRows` (same file order).
/// Units that need a W1 document build it when an earlier unit has not.
enum WorkloadRegistry {
    static let units: [BenchUnit] = bulkCreate + batchInsert + editUndo + smallSave + openRead + openReadRelationships
        + fetchAll + logReplay + fetchedResults + importCSV + plainImport + exportOut + undoImport + bigSaveOpen + manyWriters
        + remoteOpen + textTraces

    static let bulkCreate: [BenchUnit] = [
        BenchUnit("w1-strata", "W1", Subject.strata, isBulk: true, .swift(BulkCreateWorkload.runStrata)),
        BenchUnit("w1-sqlite", "W1", Subject.sqlite, isBulk: true, .swift(RawSQLitePeer.bulkCreate)),
        BenchUnit("w1-grdb-records", "W1", Subject.grdbRecords, isBulk: true, .swift { try GRDBPeer.bulkCreate($0, records: true) }),
        BenchUnit("w1-grdb-statements", "W1", Subject.grdbStatements, isBulk: true, .swift { try GRDBPeer.bulkCreate($0, records: false) }),
        BenchUnit("w1-loro", "W1", Subject.loro, isBulk: true, scale: LoroScale.bulk, .python(script: "loro_bench.py", arguments: ["w1"])),
    ]

    static let batchInsert: [BenchUnit] = [
        BenchUnit("w1b-strata", "W1b", Subject.strata, isBulk: true, .swift(BatchInsertWorkload.runStrata)),
        BenchUnit("w1b-strata-nofold", "W1b", Subject.strataNoFold, isBulk: true, .swift(BatchInsertWorkload.runStrataWithoutFold)),
        BenchUnit("w1b-sqlite", "W1b", Subject.sqlite, isBulk: true, .swift(BatchInsertWorkload.runSQLite)),
    ]

    static let editUndo: [BenchUnit] = [
        BenchUnit("w2-strata", "W2", Subject.strata, .swift { try EditUndoWorkload.runStrata($0, undoEnabled: true) }),
        BenchUnit("w2-strata-noundo", "W2", Subject.strataNoUndo, .swift { try EditUndoWorkload.runStrata($0, undoEnabled: false) }),
        BenchUnit("w2-loro", "W2", Subject.loro, scale: LoroScale.edits, .python(script: "loro_bench.py", arguments: ["w2"])),
    ]

    static let smallSave: [BenchUnit] = [
        BenchUnit("w3-strata", "W3", Subject.strata, .swift(SmallSaveWorkload.runStrata)),
        BenchUnit("w3-sqlite", "W3", Subject.sqlite, .swift(RawSQLitePeer.smallSave)),
        BenchUnit("w3-grdb-records", "W3", Subject.grdbRecords, .swift(GRDBPeer.smallSave)),
    ]

    static let openRead: [BenchUnit] = [
        BenchUnit("w4-strata", "W4", Subject.strata, .swift(OpenReadWorkload.runStrata)),
        BenchUnit("w4-sqlite", "W4", Subject.sqlite, .swift(RawSQLitePeer.openRead)),
        BenchUnit("w4-grdb-records", "W4", Subject.grdbRecords, .swift(GRDBPeer.openRead)),
    ]

    /// W4x: W4's second query with a to-one and a to-many traversed, in its own document
    /// (RelationshipReadData). At least 2,000 employees: below that no last name starts
    /// with "q" (BenchData.lastName), and the smoke tier would traverse nothing.
    static let openReadRelationships: [BenchUnit] = [
        BenchUnit("w4x-strata", "W4x", Subject.strata, scale: W4xScale.tier, scaleReason: W4xScale.reason,
                  .swift { try RelationshipReadWorkload.runStrata($0, prefetching: true) }),
        BenchUnit("w4x-strata-faults", "W4x", Subject.strataFaults, scale: W4xScale.tier, scaleReason: W4xScale.reason,
                  .swift { try RelationshipReadWorkload.runStrata($0, prefetching: false) }),
        BenchUnit("w4x-sqlite", "W4x", Subject.sqlite, scale: W4xScale.tier, scaleReason: W4xScale.reason,
                  .swift(RelationshipReadPeers.runSQLite)),
        BenchUnit("w4x-grdb-records", "W4x", Subject.grdbRecords, scale: W4xScale.tier, scaleReason: W4xScale.reason,
                  .swift(RelationshipReadPeers.runGRDB)),
    ]

    /// W12: every employee of W1's document, every attribute read.
    static let fetchAll: [BenchUnit] = [
        BenchUnit("w12-strata", "W12", Subject.strata, .swift(FetchAllWorkload.runStrataObjects)),
        BenchUnit("w12-strata-dictionaries", "W12", Subject.strataDictionaries, .swift(FetchAllWorkload.runStrataDictionaries)),
        BenchUnit("w12-sqlite", "W12", Subject.sqlite, .swift(FetchAllWorkload.runSQLite)),
        BenchUnit("w12-grdb-records", "W12", Subject.grdbRecords, .swift(FetchAllWorkload.runGRDBRecords)),
        BenchUnit("w12-grdb-rows", "W12", Subject.grdbStatements, .swift(FetchAllWorkload.runGRDBRows)),
    ]

    static let logReplay: [BenchUnit] = [
        BenchUnit("w6-strata", "W6", Subject.strata, .swift(LogReplayWorkload.runStrata)),
    ]

    static let fetchedResults: [BenchUnit] = [
        BenchUnit("w9-strata", "W9", Subject.strata, .swift(FetchedResultsWorkload.runStrata)),
    ]

    static let bigSaveOpen: [BenchUnit] = [
        BenchUnit("w10-strata", "W10", Subject.strata, .swift(BigSaveOpenWorkload.runStrata)),
    ]

    /// W11: 8 writer processes (this executable, `--w11-writer`) share one PostgreSQL document.
    static let manyWriters: [BenchUnit] = [
        BenchUnit("w11-strata", "W11", Subject.strata, .swift(ManyWriterWorkload.runStrata)),
    ]

    /// W16: a long PostgreSQL document opened by a new store (Tools/network-bench runs it
    /// across a network).
    static let remoteOpen: [BenchUnit] = [
        BenchUnit("w16-strata", "W16", Subject.strata, isBulk: true, .swift(RemoteOpenWorkload.runStrata)),
    ]

    /// W8: the tools run as child processes of the unit (the `strata` release build, the
    /// `sqlite3` shell), GRDB in the unit's own process.
    static let importCSV: [BenchUnit] = [
        BenchUnit("w8-strata", "W8", Subject.strata, isBulk: true, .swift(ImportWorkload.runStrata)),
        BenchUnit("w8-sqlite", "W8", Subject.sqlite, isBulk: true, .swift(ImportWorkload.runSQLiteShell)),
        BenchUnit("w8-grdb-statements", "W8", Subject.grdbStatements, isBulk: true, .swift(ImportWorkload.runGRDB)),
    ]

    /// W8b: W8 into a model and a table without indexes.
    static let plainImport: [BenchUnit] = [
        BenchUnit("w8b-strata", "W8b", Subject.strata, isBulk: true, .swift(ImportWorkload.runStrataPlain)),
        BenchUnit("w8b-sqlite", "W8b", Subject.sqlite, isBulk: true, .swift(ImportWorkload.runSQLiteShellPlain)),
    ]

    /// W13: W8's rows written out by `strata fetch`/`strata export` and the shell.
    static let exportOut: [BenchUnit] = [
        BenchUnit("w13-strata", "W13", Subject.strata, isBulk: true, .swift(ExportWorkload.runStrata)),
        BenchUnit("w13-sqlite", "W13", Subject.sqlite, isBulk: true, .swift(ExportWorkload.runSQLiteShell)),
    ]

    /// W14: `strata undo` and `strata redo` of W8's import.
    static let undoImport: [BenchUnit] = [
        BenchUnit("w14-strata", "W14", Subject.strata, isBulk: true, .swift(UndoImportWorkload.runStrata)),
    ]

    /// W15: each editing trace in its own process (its own peak memory): Strata's text,
    /// Strata's whole-string attribute on a prefix, Loro's LoroText.
    static let textTraces: [BenchUnit] = EditingTrace.names.indices.flatMap { index -> [BenchUnit] in
        let (name, key) = EditingTrace.names[index]
        return [
            BenchUnit("w15-strata-\(key)", "W15", Subject.strata, .swift { try TextTraceWorkload.runText($0, trace: index) }),
            BenchUnit("w15-strata-string-\(key)", "W15", Subject.strata, .swift { try TextTraceWorkload.runWholeString($0, trace: index) }),
            BenchUnit("w15-loro-\(key)", "W15", Subject.loro, .python(script: "loro_bench.py", arguments: ["w15", "--trace", name, "--key", key, "--undo-steps", "200"])),
            // The same granularity as Strata's: a commit (an undo step) per keystroke.
            BenchUnit("w15-loro-each-\(key)", "W15", Subject.loro, .python(script: "loro_bench.py", arguments: [
                "w15", "--trace", name, "--key", "\(key)_each", "--undo-steps", "200", "--commit-every", "1"])),
        ]
    }

    static func unit(_ id: String) -> BenchUnit? { units.first { $0.id == id } }

    /// Standalone workloads outside the table, run as `StrataBenchmarks <name> [--quick]`;
    /// they print their own report. One line each.
    static let commands: [String: @Sendable (_ quick: Bool) throws -> Void] = {
        var commands: [String: @Sendable (_ quick: Bool) throws -> Void] = [
            "document": { try DocumentWorkload.main(quick: $0) },
            "fetch": { _ in try FetchWorkload.runFromCommandLine() },
            "w1-memory": { try W1MemoryBreakdown.main(quick: $0) },
        ]
        #if STRATA_BENCH_INSPECTOR
        // Declared with STRATA_INSPECTOR=1 too (Package.swift).
        commands["inspector"] = { try InspectorWorkload.main(quick: $0) }
        #endif
        return commands
    }()
}

/// W4x needs employees whose last name starts with "q": 2,000 at least (the smoke tier's 300
/// have none).
enum W4xScale {
    static let minimumObjects = 2_000
    static let reason = "W4x's query finds no employee below \(minimumObjects)"
    static let tier: @Sendable (Tier) -> Tier = { tier in
        var scaled = tier
        scaled.objects = max(tier.objects, minimumObjects)
        return scaled
    }
}

/// Loro runs its slow paths at reduced sizes (its undo costs milliseconds per step);
/// the rates stay comparable, and the table says which size it ran.
enum LoroScale {
    static let bulk: @Sendable (Tier) -> Tier = { tier in
        var scaled = tier
        scaled.objects = min(tier.objects, 200_000)
        return scaled
    }
    static let edits: @Sendable (Tier) -> Tier = { tier in
        var scaled = tier
        scaled.edits = min(tier.edits, 20_000)
        scaled.editObjects = min(tier.editObjects, 2_000)
        return scaled
    }
}
