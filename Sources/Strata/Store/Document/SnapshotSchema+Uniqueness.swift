import Foundation

/// One uniqueness constraint's index on a snapshot table.
struct UniquenessIndex {
    let name: String
    let table: String
    let columns: [String]
    /// The `_entity` values the index covers when the constraint is declared on a
    /// sub-entity over a column that rows outside its sub-tree also fill (an inherited
    /// attribute): the index is then partial, so those rows never clash with it.
    let entities: [Int]?

    /// `CREATE [UNIQUE] INDEX …`.
    func statement(unique: Bool) -> String {
        let quoted = columns.map(SnapshotSchema.quote).joined(separator: ", ")
        var sql = "CREATE \(unique ? "UNIQUE " : "")INDEX \(SnapshotSchema.quote(name)) ON \(SnapshotSchema.quote(table)) (\(quoted))"
        if let entities { sql += " WHERE \"_entity\" IN (\(entities.map(String.init).joined(separator: ", ")))" }
        return sql
    }

    /// The rows' keys held more than once (NULLs never clash, as in the index): each
    /// clash's key and records' primary keys, at most `limit` of them.
    func clashes(on connection: SQLiteConnection, limit: Int = 20) throws -> [(key: [SQLiteValue], keys: [Int64])] {
        let quoted = columns.map(SnapshotSchema.quote)
        var filter = quoted.map { "\($0) IS NOT NULL" }
        if let entities { filter.append("\"_entity\" IN (\(entities.map(String.init).joined(separator: ", ")))") }
        let sql = "SELECT \(quoted.joined(separator: ", ")), group_concat(\"_pk\") FROM \(SnapshotSchema.quote(table))"
            + " WHERE \(filter.joined(separator: " AND ")) GROUP BY \(quoted.joined(separator: ", ")) HAVING count(*) > 1 LIMIT \(limit)"
        return try connection.prepare(sql).rows().map { row in
            let keys: [Int64] = if case .text(let list)? = row.last { list.split(separator: ",").compactMap { Int64($0) }.sorted() } else { [] }
            return (Array(row.dropLast()), keys)
        }
    }
}

/// A constraint index of a document, as the document holds it.
struct UniquenessIndexState {
    let index: UniquenessIndex
    /// Whether the document has the index at all (a read-only open of a document created
    /// before the constraint was declared has not).
    let isPresent: Bool
    /// Whether it is a UNIQUE index; not when the records broke the constraint before it
    /// was declared (``UniquenessIndexState/clashes`` names them).
    let isUnique: Bool
    /// The clashing keys of a non-unique index's records.
    let clashes: [(key: [SQLiteValue], keys: [Int64])]
}

extension SnapshotSchema {
    /// The constraint indexes' `CREATE INDEX` statements: one per uniqueness constraint over
    /// its columns in the root table (sub-entities share it).
    ///
    /// UNIQUE for a new document. The snapshot is written only from the log's net effect
    /// (a compaction, a batch's fold), in two phases — the constrained columns of the rows
    /// being rewritten are cleared first (``clearConstrainedColumns(of:on:)``) — so a save
    /// that swapped two records' keys never meets SQLite's row-by-row check half way. The
    /// save's own check (`ManagedObjectContext.findUniquenessViolations`) stays the
    /// enforcement and names the objects; the index is the guarantee behind it and its speed.
    /// - Parameter unique: false for a migration's new snapshot, whose records may have
    ///   broken a constraint before it was declared: its next writable open makes the
    ///   indexes UNIQUE where the records allow (``reconcileUniquenessIndexes(on:)``).
    func uniquenessIndexStatements(unique: Bool) -> [String] {
        uniquenessIndexes().map { $0.statement(unique: unique) }
    }

    /// Makes the constraint indexes the model declares, at a writable open, in a write
    /// transaction of its own: a missing one is created, UNIQUE where the records allow,
    /// and a non-unique one becomes UNIQUE once its records no longer clash. A document
    /// whose records break a constraint declared after they were written keeps a
    /// non-unique index (`strata info` and `strata-log verify` name the records); its saves
    /// are still checked. Constraints do not change the model's version hash, so such a
    /// document opens with either model.
    func reconcileUniquenessIndexes(on connection: SQLiteConnection) throws {
        let states = try uniquenessIndexStates(on: connection, clashLimit: 1)
        let due = states.filter { !$0.isPresent || (!$0.isUnique && $0.clashes.isEmpty) }
        guard !due.isEmpty else { return }
        try connection.transaction(.immediate) {
            for state in due {
                if state.isPresent { try connection.execute("DROP INDEX \(Self.quote(state.index.name))") }
                try connection.execute(state.index.statement(unique: state.clashes.isEmpty))
            }
        }
    }

    /// Each constraint index the model declares, as the document holds it; the clashing
    /// records of a non-unique one (at most `clashLimit` keys). With `undeclared`, also the
    /// non-unique constraint indexes the model does not declare: a writer's newer model
    /// made them (constraints leave the version hash, and so the recorded model, alone).
    func uniquenessIndexStates(on connection: SQLiteConnection, clashLimit: Int = 20,
                               undeclared: Bool = false) throws -> [UniquenessIndexState] {
        var wanted = uniquenessIndexes()
        var present: [String: String] = [:]
        var tableOf: [String: String] = [:]
        for row in try connection.prepare("SELECT name, sql, tbl_name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").rows() {
            if case .text(let name) = row[0], case .text(let sql) = row[1], case .text(let table) = row[2] {
                present[name] = sql
                tableOf[name] = table
            }
        }
        if undeclared {
            let known = Set(wanted.map(\.name))
            for (name, sql) in present.sorted(by: { $0.key < $1.key })
            where !known.contains(name) && name.contains("_unique_") && name.hasSuffix("_index") && sql.uppercased().hasPrefix("CREATE INDEX") {
                let columns = try connection.prepare("SELECT name FROM pragma_index_info(?) ORDER BY seqno").rows([.text(name)])
                    .compactMap { row -> String? in if case .text(let column)? = row.first { column } else { nil } }
                guard let table = tableOf[name], !columns.isEmpty else { continue }
                wanted.append(UniquenessIndex(name: name, table: table, columns: columns, entities: nil))
            }
        }
        guard !wanted.isEmpty else { return [] }
        return try wanted.map { index in
            let sql = present[index.name]
            let unique = sql?.uppercased().hasPrefix("CREATE UNIQUE") ?? false
            let clashes = unique ? [] : try index.clashes(on: connection, limit: clashLimit)
            return UniquenessIndexState(index: index, isPresent: sql != nil, isUnique: unique, clashes: clashes)
        }
    }

    /// The first phase of writing rows into a table with constraint indexes: the
    /// constrained columns of those of `ids` the snapshot holds are set to NULL (which
    /// never clashes), so that writing the final values one row at a time cannot meet a
    /// value another row of the same write gives up — a swap of two keys, a key moved
    /// along a chain.
    func clearConstrainedColumns(of ids: some Sequence<ManagedObjectID>, on connection: SQLiteConnection) throws {
        let indexes = uniquenessIndexes()
        guard !indexes.isEmpty else { return }
        var columnsByTable: [String: [String]] = [:]
        for index in indexes {
            for column in index.columns where !(columnsByTable[index.table]?.contains(column) ?? false) {
                columnsByTable[index.table, default: []].append(column)
            }
        }
        var keysByTable: [String: [Int64]] = [:]
        for id in ids {
            let table = table(for: id.entity).name
            if columnsByTable[table] != nil { keysByTable[table, default: []].append(id.primaryKey) }
        }
        for (table, keys) in keysByTable {
            let sets = columnsByTable[table]!.map { "\(Self.quote($0)) = NULL" }.joined(separator: ", ")
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                try connection.execute("UPDATE \(Self.quote(table)) SET \(sets) WHERE \"_pk\" IN (\(chunk.map(String.init).joined(separator: ",")))")
            }
        }
    }

    /// Replaces each UNIQUE constraint index by a non-unique one: a write whose rows
    /// break a constraint (a batch request, which the save's check does not see) is kept,
    /// and `strata-log verify` names the records instead of the document failing to compact.
    func demoteUniquenessIndexes(on connection: SQLiteConnection) throws {
        for state in try uniquenessIndexStates(on: connection, clashLimit: 0) where state.isUnique {
            try connection.execute("DROP INDEX \(Self.quote(state.index.name))")
            try connection.execute(state.index.statement(unique: false))
        }
    }

    /// Runs `write` (rows written into the snapshot) in a savepoint; when a UNIQUE
    /// constraint index refuses a row — records a batch request wrote past the save's check
    /// — it undoes the write, makes the constraint indexes non-unique
    /// (``demoteUniquenessIndexes(on:)``) and writes again, so the document still compacts.
    func writeKeepingConstraintIndexes(on connection: SQLiteConnection, _ write: () throws -> Void) throws {
        do {
            try connection.savepoint(write)
        } catch where Self.isUniqueViolation(error) {
            try demoteUniquenessIndexes(on: connection)
            try write()
        }
    }

    /// Whether `error` is SQLite refusing a row because of a UNIQUE index.
    static func isUniqueViolation(_ error: Error) -> Bool {
        (error as? StrataError)?.context.sqliteExtendedCode == 2067
    }

    /// Each constraint's index, in table order.
    func uniquenessIndexes() -> [UniquenessIndex] {
        var result: [UniquenessIndex] = []
        for table in tables.values.sorted(by: { $0.root.index < $1.root.index }) {
            var made: Set<[String]> = []
            for entity in table.root.selfAndDescendants {
                let storage = storage(of: entity)
                for constraint in entity.uniquenessConstraints {
                    var columns: [String] = []
                    var inherited = false
                    for name in constraint {
                        guard let slot = entity.slot(forKey: name), slot < storage.count else { break }
                        // An attribute of an ancestor fills a column for rows outside this sub-tree.
                        if entity.superentity.map({ $0.slot(forKey: name) != nil }) ?? false { inherited = true }
                        switch storage[slot] {
                        case .column(let column): columns.append(column)
                        case .toOne(let column, _, _): columns.append(column)
                        default: break
                        }
                    }
                    guard columns.count == constraint.count else { continue }
                    // An index over the same columns for the whole table already covers a sub-tree's.
                    guard !made.contains(columns) else { continue }
                    let partial = inherited && table.hasEntityColumn
                    guard made.insert(partial ? [entity.name] + columns : columns).inserted else { continue }
                    let base = partial ? "\(table.name)_unique_\(entity.name)_" : "\(table.name)_unique_"
                    result.append(UniquenessIndex(
                        name: base + columns.joined(separator: "_") + "_index", table: table.name, columns: columns,
                        entities: partial ? entity.selfAndDescendants.map(\.index).sorted() : nil))
                }
            }
        }
        return result
    }
}
