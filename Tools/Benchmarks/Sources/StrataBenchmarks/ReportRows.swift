import Foundation

/// How a figure is shown.
enum FigureUnit: String, Codable, Sendable {
    case seconds, milliseconds, rate, mebibytes, bytes, count, ratio, percent
    /// A file's size, given in bytes: shown in KiB or MiB.
    case fileSize

    func format(_ value: Double) -> String {
        switch self {
        case .seconds: return value < 1 ? String(format: "%.1f ms", value * 1000) : String(format: "%.2f s", value)
        case .milliseconds: return String(format: value < 10 ? "%.2f ms" : "%.1f ms", value)
        case .rate:
            if value >= 1e6 { return String(format: "%.2f M/s", value / 1e6) }
            if value >= 1e3 { return String(format: "%.0f k/s", value / 1e3) }
            return String(format: "%.0f /s", value)
        case .mebibytes: return String(format: "%.0f MiB", value)
        case .bytes: return String(format: "%.1f B", value)
        case .count: return String(format: "%.0f", value)
        case .ratio: return String(format: "%.2f×", value)
        case .percent: return String(format: "%.0f %%", value)
        case .fileSize:
            return value < 1_048_576 ? String(format: "%.1f KiB", value / 1024) : String(format: "%.2f MiB", value / 1_048_576)
        }
    }
}

/// One line of the results table: a metric of one workload, one cell per subject.
struct ReportRow: Sendable {
    var workload: String
    var label: String
    var metric: String
    var unit: FigureUnit
    /// The subject whose figure fills the Strata column (W2's undo-off run).
    var strataSubject = Subject.strata
    /// Why a peer has no figure ("n/a: no undo").
    var notApplicable: [String: String] = [:]

    func key(_ subject: String) -> String {
        "\(workload).\(subject == Subject.strata ? strataSubject : subject).\(metric)"
    }
}

/// The table's rows, in workload order.
enum ReportRows {
    static let noUndo = "n/a: no undo"
    static let peersWithoutUndo = [Subject.sqlite: noUndo, Subject.grdbRecords: noUndo, Subject.grdbStatements: noUndo]
    static let noQueries = [Subject.loro: "n/a: no queries or indexes"]
    static let noResults = [Subject.sqlite: "n/a: no observed results", Subject.grdbRecords: "n/a: not measured",
                            Subject.grdbStatements: "n/a", Subject.loro: "n/a"]
    static let noLog = [Subject.sqlite: "n/a: no log", Subject.grdbRecords: "n/a: no log", Subject.grdbStatements: "n/a: no log",
                        Subject.loro: "n/a: not measured"]

    static let w8Peers = [Subject.grdbRecords: "n/a: statements only", Subject.loro: "n/a: no CSV import"]
    /// W8b and W13 measure the tools against the sqlite3 shell alone.
    static let shellOnly = [Subject.grdbRecords: "n/a: tools only", Subject.grdbStatements: "n/a: tools only", Subject.loro: "n/a"]
    static let shellUndo = [Subject.sqlite: noUndo, Subject.grdbRecords: noUndo, Subject.grdbStatements: noUndo, Subject.loro: "n/a"]
    static let noBatchPeer = [Subject.grdbRecords: "n/a: see W1", Subject.grdbStatements: "n/a: see W1", Subject.loro: "n/a"]

    static let noOpenAfterSave = [Subject.sqlite: "n/a: see W4", Subject.grdbRecords: "n/a: see W4", Subject.grdbStatements: "n/a",
                                  Subject.loro: "n/a"]

    static let noSharedServer = [Subject.sqlite: "n/a: one machine", Subject.grdbRecords: "n/a: one machine",
                                 Subject.grdbStatements: "n/a", Subject.loro: "n/a: no server"]

    static let noText = [Subject.sqlite: "n/a: no text", Subject.grdbRecords: "n/a: no text", Subject.grdbStatements: "n/a: no text"]
    static let noWholeString = noText.merging([Subject.loro: "n/a: see text rows"]) { $1 }

    /// W15's rows for one editing trace (figure prefix `key`): Strata's text beside Loro,
    /// then Strata's whole-string attribute on a prefix.
    static func textTraceRows(_ name: String, _ key: String) -> [ReportRow] {
        func row(_ label: String, _ metric: String, _ unit: FigureUnit, loro: String? = nil) -> ReportRow {
            ReportRow(workload: "W15", label: "\(name): \(label)", metric: "\(key)_\(metric)", unit: unit,
                      notApplicable: loro.map { noText.merging([Subject.loro: $0]) { $1 } } ?? noText)
        }
        func string(_ label: String, _ metric: String, _ unit: FigureUnit) -> ReportRow {
            ReportRow(workload: "W15", label: "\(name), whole string set per keystroke (prefix): \(label)",
                      metric: "\(key)_string_\(metric)", unit: unit, notApplicable: noWholeString)
        }
        return [
            row("keystrokes applied", "keystrokes", .count),
            row("apply: a flush per keystroke, a save per 1,000 (Loro: a commit per 100)", "apply_s", .seconds),
            row("of which the saves", "save_s", .seconds, loro: "n/a: no saves"),
            row("undo steps (Strata: about a word each; Loro: a commit each)", "undo_steps", .count),
            row("undo all + redo all", "undo_redo_s", .seconds),
            row("Loro on a whole trace: undo + redo of the last 200 steps only (slower per step as history grows)",
                "undo_redo_last_s", .seconds),
            row("document with full history (Loro: snapshot with history)", "bytes", .fileSize),
            row("same, bytes per keystroke", "bytes_per_keystroke", .bytes),
            row("after compaction keeping history", "compacted_bytes", .fileSize, loro: "n/a: no compaction"),
            row("open + first read of the text, compacted (Loro: import + to_string)", "open_read_ms", .milliseconds),
            row("same, before compaction (segments replayed)", "unfolded_open_read_ms", .milliseconds, loro: "n/a"),
            row("peak memory", "peak_mib", .mebibytes),
            string("keystrokes applied", "keystrokes", .count),
            string("apply", "apply_s", .seconds),
            string("undo all + redo all", "undo_redo_s", .seconds),
            string("document with full history", "bytes", .fileSize),
            string("open + first read, compacted", "open_read_ms", .milliseconds),
            string("peak memory", "peak_mib", .mebibytes),
        ]
    }

    static let all: [ReportRow] = [
        ReportRow(workload: "W1", label: "insert (create objects, set values)", metric: "insert_s", unit: .seconds,
                  notApplicable: [Subject.grdbRecords: "in insert+save", Subject.grdbStatements: "in insert+save"]),
        ReportRow(workload: "W1", label: "save (SQLite: COMMIT)", metric: "save_s", unit: .seconds,
                  notApplicable: [Subject.grdbRecords: "in insert+save", Subject.grdbStatements: "in insert+save"]),
        ReportRow(workload: "W1", label: "insert + save", metric: "insert_save_s", unit: .seconds),
        ReportRow(workload: "W1", label: "compaction into the snapshot", metric: "compact_s", unit: .seconds,
                  notApplicable: [Subject.sqlite: "n/a: no log", Subject.grdbRecords: "n/a: no log",
                                  Subject.grdbStatements: "n/a: no log", Subject.loro: "n/a: no log"]),
        ReportRow(workload: "W1", label: "insert + save + compaction (peers: insert + save, no log)", metric: "insert_save_compact_s",
                  unit: .seconds),
        ReportRow(workload: "W1", label: "peak memory", metric: "peak_mib", unit: .mebibytes),
        ReportRow(workload: "W1b", label: "batch insert alone (peers: insert + commit)", metric: "insert_s", unit: .seconds,
                  strataSubject: Subject.strataNoFold, notApplicable: noBatchPeer),
        ReportRow(workload: "W1b", label: "rows per second, batch insert alone", metric: "rows_per_s", unit: .rate,
                  strataSubject: Subject.strataNoFold, notApplicable: noBatchPeer),
        ReportRow(workload: "W1b", label: "peak memory, batch insert alone", metric: "peak_mib", unit: .mebibytes,
                  strataSubject: Subject.strataNoFold, notApplicable: noBatchPeer),
        ReportRow(workload: "W1b", label: "batch insert + automatic fold (default settings)", metric: "insert_fold_s", unit: .seconds,
                  notApplicable: noBatchPeer),
        ReportRow(workload: "W1b", label: "rows per second, batch insert + fold", metric: "rows_per_s", unit: .rate,
                  notApplicable: noBatchPeer),
        ReportRow(workload: "W1b", label: "peak memory, batch insert + fold", metric: "peak_mib", unit: .mebibytes,
                  notApplicable: noBatchPeer),
        ReportRow(workload: "W2", label: "edits", metric: "edit_ops_per_s", unit: .rate, notApplicable: peersWithoutUndo),
        ReportRow(workload: "W2", label: "undo all", metric: "undo_ops_per_s", unit: .rate, notApplicable: peersWithoutUndo),
        ReportRow(workload: "W2", label: "redo all", metric: "redo_ops_per_s", unit: .rate, notApplicable: peersWithoutUndo),
        ReportRow(workload: "W2", label: "peak memory, undo on", metric: "peak_mib", unit: .mebibytes, notApplicable: peersWithoutUndo),
        ReportRow(workload: "W2", label: "edits, undo off", metric: "edit_ops_per_s", unit: .rate, strataSubject: Subject.strataNoUndo,
                  notApplicable: peersWithoutUndo.merging([Subject.loro: "n/a: see w2-noundo"]) { $1 }),
        ReportRow(workload: "W2", label: "peak memory, undo off", metric: "peak_mib", unit: .mebibytes, strataSubject: Subject.strataNoUndo,
                  notApplicable: peersWithoutUndo.merging([Subject.loro: "n/a"]) { $1 }),
        ReportRow(workload: "W3", label: "save, median", metric: "median_ms", unit: .milliseconds, notApplicable: [Subject.loro: "n/a: no incremental save"]),
        ReportRow(workload: "W3", label: "save, p99", metric: "p99_ms", unit: .milliseconds, notApplicable: [Subject.loro: "n/a"]),
        ReportRow(workload: "W4", label: "open", metric: "open_s", unit: .seconds, notApplicable: noQueries),
        ReportRow(workload: "W4", label: "time to first result (open + 20 by equality)", metric: "first_result_s", unit: .seconds, notApplicable: noQueries),
        ReportRow(workload: "W4", label: "100 by BEGINSWITH[c] AND salary, sorted", metric: "prefix_s", unit: .seconds, notApplicable: noQueries),
        ReportRow(workload: "W4", label: "peak memory", metric: "peak_mib", unit: .mebibytes, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "W4's 100 + each one's department + its 3 skills, every attribute: prefetching (peers: join + IN, GRDB associations)",
                  metric: "read_s", unit: .seconds, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "same, faults fired as touched (no prefetching)", metric: "read_s", unit: .seconds,
                  strataSubject: Subject.strataFaults, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "processor time, prefetching (every thread of the process)", metric: "read_cpu_s", unit: .seconds,
                  notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "processor time, faults", metric: "read_cpu_s", unit: .seconds,
                  strataSubject: Subject.strataFaults, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "SQL statements, prefetching", metric: "statements", unit: .count, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "SQL statements, faults", metric: "statements", unit: .count,
                  strataSubject: Subject.strataFaults, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "objects read (employees + departments + skills)", metric: "objects", unit: .count,
                  notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "peak memory, prefetching", metric: "peak_mib", unit: .mebibytes, notApplicable: noQueries),
        ReportRow(workload: "W4x", label: "peak memory, faults", metric: "peak_mib", unit: .mebibytes,
                  strataSubject: Subject.strataFaults, notApplicable: noQueries),
        ReportRow(workload: "W12", label: "every employee, every attribute: objects, faults off (GRDB statements: rows)", metric: "fetch_s",
                  unit: .seconds, notApplicable: noQueries),
        ReportRow(workload: "W12", label: "peak memory, objects", metric: "peak_mib", unit: .mebibytes, notApplicable: noQueries),
        ReportRow(workload: "W12", label: "same as dictionaries (fetchDictionaries)", metric: "fetch_s", unit: .seconds,
                  strataSubject: Subject.strataDictionaries, notApplicable: noQueries),
        ReportRow(workload: "W12", label: "peak memory, dictionaries", metric: "peak_mib", unit: .mebibytes,
                  strataSubject: Subject.strataDictionaries, notApplicable: noQueries),
        ReportRow(workload: "W5", label: "compaction (ops folded) vs rows written", metric: "compact_ops_per_s", unit: .rate,
                  notApplicable: [Subject.loro: "n/a: no compaction"]),
        ReportRow(workload: "W6", label: "replay: decode + apply", metric: "replay_ops_per_s", unit: .rate, notApplicable: noLog),
        ReportRow(workload: "W6", label: "decode (LZ4 + segment format)", metric: "decode_ops_per_s", unit: .rate, notApplicable: noLog),
        ReportRow(workload: "W6", label: "apply to an in-memory store", metric: "apply_ops_per_s", unit: .rate, notApplicable: noLog),
        ReportRow(workload: "W6", label: "LZ4 decompression alone, same bytes", metric: "lz4_ops_per_s", unit: .rate, notApplicable: noLog),
        ReportRow(workload: "W9", label: "edit moving an object between sections, diff delivered, median", metric: "move_median_ms",
                  unit: .milliseconds, notApplicable: noResults),
        ReportRow(workload: "W9", label: "same, p99", metric: "move_p99_ms", unit: .milliseconds, notApplicable: noResults),
        ReportRow(workload: "W9", label: "insert 1,000 in one save, diffs delivered", metric: "insert_save_ms", unit: .milliseconds,
                  notApplicable: noResults),
        ReportRow(workload: "W8", label: "CSV import (raw SQLite column: the sqlite3 shell's .import)", metric: "import_s", unit: .seconds,
                  notApplicable: w8Peers),
        ReportRow(workload: "W8", label: "first indexed fetch (a new process; GRDB: same process)", metric: "fetch_s", unit: .seconds,
                  notApplicable: w8Peers),
        ReportRow(workload: "W8", label: "CSV → queryable document (import + fetch)", metric: "total_s", unit: .seconds, notApplicable: w8Peers),
        ReportRow(workload: "W8", label: "peak memory (largest process)", metric: "peak_mib", unit: .mebibytes, notApplicable: w8Peers),
        ReportRow(workload: "W8b", label: "CSV import, no indexes (raw SQLite column: the shell's .import into a plain table)",
                  metric: "import_s", unit: .seconds, notApplicable: shellOnly),
        ReportRow(workload: "W8b", label: "peak memory", metric: "peak_mib", unit: .mebibytes, notApplicable: shellOnly),
        ReportRow(workload: "W13", label: "every row out as CSV: strata fetch --format csv (raw SQLite column: sqlite3 -csv)",
                  metric: "csv_s", unit: .seconds, notApplicable: shellOnly),
        ReportRow(workload: "W13", label: "peak memory, CSV", metric: "csv_peak_mib", unit: .mebibytes, notApplicable: shellOnly),
        ReportRow(workload: "W13", label: "every row out as JSON: strata export (raw SQLite column: sqlite3 -json)",
                  metric: "json_s", unit: .seconds, notApplicable: shellOnly),
        ReportRow(workload: "W13", label: "peak memory, JSON", metric: "json_peak_mib", unit: .mebibytes, notApplicable: shellOnly),
        ReportRow(workload: "W14", label: "strata import of W8's CSV (the reference)", metric: "import_s", unit: .seconds,
                  notApplicable: shellUndo),
        ReportRow(workload: "W14", label: "then strata undo", metric: "undo_s", unit: .seconds, notApplicable: shellUndo),
        ReportRow(workload: "W14", label: "then strata redo", metric: "redo_s", unit: .seconds, notApplicable: shellUndo),
        ReportRow(workload: "W14", label: "peak memory (largest process)", metric: "peak_mib", unit: .mebibytes, notApplicable: shellUndo),
        ReportRow(workload: "W10", label: "one save of 200,000 objects (quick tier: 20,000), automatic fold included", metric: "save_s", unit: .seconds,
                  notApplicable: noOpenAfterSave),
        ReportRow(workload: "W10", label: "then open + first indexed fetch (folded)", metric: "open_fetch_ms", unit: .milliseconds,
                  notApplicable: noOpenAfterSave),
        ReportRow(workload: "W10", label: "same, automatic compaction off (segment decoded on open)", metric: "unfolded_open_fetch_ms",
                  unit: .milliseconds, notApplicable: noOpenAfterSave),
        ReportRow(workload: "W11", label: "8 writer processes, one PostgreSQL document: saves per second, all writers", metric: "saves_per_s",
                  unit: .rate, notApplicable: noSharedServer),
        ReportRow(workload: "W11", label: "same, per writer (median)", metric: "saves_per_s_per_writer", unit: .rate,
                  notApplicable: noSharedServer),
        ReportRow(workload: "W11", label: "saves that met a conflict (retried under object trump)", metric: "conflict_percent",
                  unit: .percent, notApplicable: noSharedServer),
        ReportRow(workload: "W11", label: "a save reaches another writer's store (NOTIFY + catch-up), median", metric: "reach_median_ms",
                  unit: .milliseconds, notApplicable: noSharedServer),
        ReportRow(workload: "W11", label: "same, p99", metric: "reach_p99_ms", unit: .milliseconds, notApplicable: noSharedServer),
        ReportRow(workload: "W16", label: "a PostgreSQL document of 100,000 small saves (quick 10,000) opened, first fetch: never compacted", metric: "open_log_s",
                  unit: .seconds, notApplicable: noSharedServer),
        ReportRow(workload: "W16", label: "same, compacted on the server, 500 saves after its snapshot", metric: "open_snapshot_s",
                  unit: .seconds, notApplicable: noSharedServer),
        ReportRow(workload: "W7", label: "snapshot bytes per object (whole file)", metric: "snapshot_bytes_per_object", unit: .bytes),
        ReportRow(workload: "W7", label: "of which tables and indexes (no bookkeeping)", metric: "data_bytes_per_object", unit: .bytes,
                  notApplicable: [Subject.loro: "n/a"]),
        ReportRow(workload: "W7", label: "of which the table alone (no indexes)", metric: "table_bytes_per_object", unit: .bytes,
                  notApplicable: [Subject.loro: "n/a"]),
        ReportRow(workload: "W7", label: "log bytes per inserted object", metric: "segment_bytes_per_object", unit: .bytes,
                  notApplicable: [Subject.sqlite: "n/a: no log", Subject.grdbRecords: "n/a: no log"]),
        ReportRow(workload: "W7", label: "log bytes per edit operation", metric: "segment_bytes_per_edit", unit: .bytes,
                  notApplicable: [Subject.sqlite: "n/a: no log", Subject.grdbRecords: "n/a: no log"]),
    ] + EditingTrace.names.flatMap { textTraceRows($0.name, $0.key) }

    /// W5's peer figure is the raw rows-per-second rate of W1, not a compaction.
    static func peerKey(_ row: ReportRow, subject: String) -> String {
        if row.workload == "W5" { return "W5.\(subject).rows_per_s" }
        // Without a log, a peer's insert + save is all there is to W1.
        if row.metric == "insert_save_compact_s" { return "W1.\(subject).insert_save_s" }
        return row.key(subject)
    }
}
