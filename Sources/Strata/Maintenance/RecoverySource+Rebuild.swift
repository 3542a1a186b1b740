import Foundation

extension RecoverySource {
    /// Writes a fresh document at `building` from the complete log: the same identity,
    /// every segment's stored bytes unchanged, group rows and key counters derived from
    /// the segments, and snapshot tables compacted from them.
    func rebuild(into building: URL, report: inout RecoveryReport) throws {
        reportCarved(&report)
        let kept = records
        try write(building, segments: kept, compactedThrough: 0)
        let records = try compact(building)
        let last = kept.last?.sequence ?? 0
        report.repairs.append(kept.isEmpty
            ? "rebuilt the document from its identity (it holds no segments and no records)"
            : "rebuilt the snapshot tables from the complete log (segments 1–\(last)): \(records) records")
    }

    /// Writes a fresh document at `building` from what can be read: damaged segments
    /// dropped (a damaged uncompacted segment with every later one; a damaged compacted
    /// one with the history before it), every snapshot row SQLite can still read copied.
    func salvage(into building: URL, report: inout RecoveryReport) throws {
        guard model != nil else { throw DocumentOpenFailure.damaged(url.path, "its stored model cannot be read") }
        reportCarved(&report)
        var drop: [UInt64: String] = [:]
        let compacted = compactedThrough
        let sequences = Set(records.map(\.sequence)).union(damaged.keys)
        if let through = damaged.keys.filter({ $0 <= compacted }).max() {
            for sequence in sequences where sequence <= through {
                drop[sequence] = damaged[sequence].map { "damaged: \($0)" }
                    ?? "already in the snapshot, before damaged segment \(through) (history before it dropped)"
            }
        }
        if let first = damaged.keys.filter({ $0 > compacted }).min() {
            for sequence in sequences where sequence >= first {
                drop[sequence] = damaged[sequence].map { "damaged: \($0)" } ?? "saved after damaged segment \(first)"
            }
        }
        report.dropped = drop.sorted { $0.key < $1.key }.map { (sequence: $0.key, reason: $0.value) }
        let kept = records.filter { drop[$0.sequence] == nil && segments[$0.sequence] != nil }
        try write(building, segments: kept, compactedThrough: compacted)
        let lost = try copySnapshotRows(into: building)
        try raiseKeyCounters(in: building)
        if lost.isEmpty {
            report.repairs.append("copied every snapshot row into a fresh file; kept \(kept.count) intact segment\(kept.count == 1 ? "" : "s")")
        } else {
            report.repairs.append("copied every readable snapshot row into a fresh file; kept \(kept.count) intact segment\(kept.count == 1 ? "" : "s")")
            report.losses += lost
        }
    }

    private func reportCarved(_ report: inout RecoveryReport) {
        guard !carved.isEmpty else { return }
        let list = carved.sorted().map(String.init).joined(separator: ", ")
        report.repairs.append("found the intact bodies of segment\(carved.count == 1 ? "" : "s") \(list) in the file's pages (SQLite could not read their log rows)")
    }

    /// Creates the new file with the document's identity and the given segments.
    private func write(_ building: URL, segments kept: [SegmentRecord], compactedThrough: UInt64) throws {
        guard let model else { throw DocumentOpenFailure.damaged(url.path, "its stored model cannot be read") }
        var configuration = settings
        configuration.isReadOnly = false
        configuration.checksIntegrityOnOpen = false
        configuration.compactsOnClose = false
        let createdAt: String? = if case .text(let text)? = values["createdAt"] { text } else { nil }
        try DocumentStore(creatingAt: building, model: model, overwrite: false, configuration: configuration,
                          identity: (identifier, createdAt)).close()
        let connection = try SQLiteConnection(path: building.path, flags: [.readWrite], busyTimeout: busyTimeout)
        defer { connection.close() }
        try connection.transaction(.immediate) {
            for record in kept {
                try LogTables.append(connection, record, groups: segments[record.sequence]?.groups.map(\.info) ?? [])
            }
            for (root, counter) in keyCounters() {
                try DocumentFile.writeMeta(connection, key: "keyCounter.\(root)", .integer(counter))
            }
            try DocumentFile.writeMeta(connection, key: "compactedThrough", .integer(Int64(compactedThrough)))
            try copyModelVersions(to: connection)
        }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Folds every segment into the snapshot tables (keeping them all as history).
    /// Returns the number of records.
    private func compact(_ building: URL) throws -> Int {
        guard let model else { return 0 }
        var configuration = settings
        configuration.isReadOnly = false
        configuration.checksIntegrityOnOpen = false
        configuration.compactsOnClose = false
        configuration.turnOffAutomaticCompaction()
        let store = try DocumentStore(openingAt: building, model: model, configuration: configuration)
        do {
            _ = try store.compact(retention: .all)
            let count = try store.info().objectCounts.values.reduce(0, +)
            try store.close()
            return count
        } catch {
            try? store.close()
            throw error
        }
    }

    /// Raises each root entity's key counter to the largest key its salvaged rows hold: a
    /// damaged `strata_meta` row may have lost the counter, and a new record must never
    /// be given a key a salvaged one has.
    private func raiseKeyCounters(in building: URL) throws {
        guard let model else { return }
        let target = try SQLiteConnection(path: building.path, flags: [.readWrite], busyTimeout: busyTimeout)
        defer { target.close() }
        try target.transaction(.immediate) {
            for entity in model.entities where entity.superentity == nil {
                let counterKey = "keyCounter.\(entity.name)"
                guard case .integer(let largest)? = try? target.prepare("SELECT MAX(_pk) FROM \(SnapshotSchema.quote(entity.name))").rows().first?.first
                else { continue }
                var stored: Int64 = 0
                if case .integer(let value)? = try target.prepare("SELECT value FROM strata_meta WHERE key = ?").rows([.text(counterKey)]).first?.first {
                    stored = value
                }
                if largest > stored { try DocumentFile.writeMeta(target, key: counterKey, .integer(largest)) }
            }
        }
        try target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Copies each snapshot table's readable rows into the new file (columns by name, so a
    /// format 1 document's rows fit format 2 tables); returns what was lost.
    private func copySnapshotRows(into building: URL) throws -> [String] {
        let target = try SQLiteConnection(path: building.path, flags: [.readWrite], busyTimeout: busyTimeout)
        defer { target.close() }
        func names(_ connection: SQLiteConnection, _ sql: String) -> [String] {
            ((try? connection.prepare(sql).rows()) ?? []).compactMap { row in
                if case .text(let name)? = row.first { name } else { nil }
            }
        }
        let reserved: Set = ["strata_meta", "strata_segment", "strata_group", LogTables.groupRunTable.name, "strata_entity"]
        var lost: [String] = []
        // Texts' identities (docs/FORMAT.md §18) are copied like the snapshot's rows.
        if !names(connection, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = '\(DocumentState.textTable)'").isEmpty {
            try target.execute(DocumentState.createTextTable)
        }
        // R-tree fetch indexes (virtual tables and their shadow tables) are refilled by
        // their triggers as the snapshot rows arrive.
        let rTrees = names(target, "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
        for table in names(target, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        where !reserved.contains(table) && !rTrees.contains(where: { table == $0 || table.hasPrefix($0 + "_") }) {
            let quoted = SnapshotSchema.quote(table)
            let wanted = names(target, "SELECT name FROM pragma_table_info('\(table)')")
            let present = Set(names(connection, "SELECT name FROM pragma_table_info('\(table)')"))
            let columns = wanted.filter(present.contains).map(SnapshotSchema.quote).joined(separator: ", ")
            guard !columns.isEmpty else {
                lost.append("table \(table): unreadable, its rows are lost")
                continue
            }
            let select = "SELECT \(columns) FROM \(quoted)"
            let insert = try target.prepare("INSERT OR IGNORE INTO \(quoted) (\(columns)) VALUES (\(Array(repeating: "?", count: columns.split(separator: ",").count).joined(separator: ", ")))")
            if let rows = try? connection.prepare(select).rows() {
                try target.transaction(.immediate) { for row in rows { try insert.run(row) } }
                lost += indexDisagreements(in: table)
                continue
            }
            // Damaged pages: row by row, as far as the key list can be read.
            let keys = (try? connection.prepare("SELECT rowid FROM \(quoted)").rows()) ?? []
            var missing = 0
            try target.transaction(.immediate) {
                for key in keys {
                    guard let row = try? connection.prepare("\(select) WHERE rowid = ?").rows([key[0]]).first else {
                        missing += 1
                        continue
                    }
                    try insert.run(row)
                }
            }
            lost.append(keys.isEmpty ? "table \(table): unreadable, its rows are lost" : "table \(table): \(missing) unreadable rows lost")
        }
        // Packed text states (docs/FORMAT.md §21) make the new file format 3, as they made
        // the old one: a Strata before it must refuse the file, not misread them.
        let packedStates = names(target, """
            SELECT name FROM sqlite_schema WHERE type = 'table' AND name = '\(DocumentState.textTable)'
            AND EXISTS (SELECT 1 FROM \(DocumentState.textTable) WHERE substr(state, 1, 1) = x'00' AND length(state) > 1)
            """)
        if !packedStates.isEmpty { try target.transaction(.immediate) { try DocumentFile.raiseToPackedFormat(target) } }
        try target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return lost
    }
}
