import Foundation

extension SnapshotSchema {
    /// One (non-unique) index per uniqueness constraint over its columns, so that the check
    /// a save makes for each key it writes (`ManagedObjectContext.findUniquenessViolations`)
    /// is one index lookup, not a scan of the table.
    ///
    /// Not `UNIQUE`: SQLite checks a UNIQUE index row by row and cannot defer the check to
    /// the end of a transaction, so a save that swaps two records' keys — valid once
    /// written — would fail half way, and replaying the log into the snapshot would fail
    /// on a document whose data predates the constraint. The save's check under the
    /// document's write lock is what enforces the constraint (docs/SQL.md, "Uniqueness
    /// constraints"). Sub-entities share their root's table: the index covers every row of
    /// the tree, which is what a constraint declared on any entity of it needs.
    func uniquenessIndexStatements() -> [String] {
        uniquenessIndexes().map(\.statement)
    }

    /// Creates the constraint indexes the document lacks: a document created before a
    /// constraint was declared gains its index when it is opened for writing (constraints
    /// do not change the model's version hash, so it opens with either model).
    func createMissingUniquenessIndexes(on connection: SQLiteConnection) throws {
        let wanted = uniquenessIndexes()
        guard !wanted.isEmpty else { return }
        let present = Set(try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'index'").rows().compactMap { row -> String? in
            if case .text(let name)? = row.first { name } else { nil }
        })
        let missing = wanted.filter { !present.contains($0.name) }
        guard !missing.isEmpty else { return }
        try connection.transaction(.immediate) {
            for index in missing { try connection.execute(index.statement) }
        }
    }

    /// Each constraint index's name and its `CREATE INDEX` statement, in table order.
    private func uniquenessIndexes() -> [(name: String, statement: String)] {
        var statements: [(name: String, statement: String)] = []
        for table in tables.values.sorted(by: { $0.root.index < $1.root.index }) {
            var made: Set<[String]> = []
            for entity in table.root.selfAndDescendants {
                let storage = storage(of: entity)
                for constraint in entity.uniquenessConstraints {
                    var columns: [String] = []
                    for name in constraint {
                        guard let slot = entity.slot(forKey: name), slot < storage.count else { break }
                        switch storage[slot] {
                        case .column(let column): columns.append(column)
                        case .toOne(let column, _, _): columns.append(column)
                        default: break
                        }
                    }
                    guard columns.count == constraint.count, made.insert(columns).inserted else { continue }
                    let name = "\(table.name)_unique_\(columns.joined(separator: "_"))_index"
                    statements.append((name, "CREATE INDEX \(Self.quote(name)) ON \(Self.quote(table.name)) (\(columns.map(Self.quote).joined(separator: ", ")))"))
                }
            }
        }
        return statements
    }
}
