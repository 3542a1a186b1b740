import Foundation

/// The model's fetch indexes as SQLite objects on the snapshot tables (docs/SQL.md,
/// "Indexes").
///
/// - A binary index `<Entity>.<index>` is `CREATE INDEX` over the elements' columns, in
///   order, each `ASC` or `DESC`; a to-one element indexes its foreign-key column. The
///   dot keeps the name apart from tables (`Entity_relationship`) and from the
///   `<Table>_<column>_index` indexes of attributes marked indexed.
/// - An R-tree index `<Entity>.<index>` is an `rtree` virtual table (`id` is the row's
///   `_pk`, then a minimum and maximum column per element, both the value) kept current by
///   three triggers on the snapshot table; rows with a NULL element are left out, as an
///   R-tree cannot hold NULL. SQLite's R-tree stores 32-bit floats rounded outwards, so a
///   query through it must still test the exact condition on the row.
///
/// Every statement says `IF NOT EXISTS`, so running them on an existing document adds the
/// indexes its model gained since the file was created and leaves the others alone.
extension SnapshotSchema {
    /// One fetch index of the model, resolved to its table and columns.
    struct ResolvedFetchIndex {
        let entity: EntityDescription
        let index: FetchIndexDescription
        let table: String
        /// The column of each element, in element order.
        let columns: [String]

        /// The SQLite name of the index (or of the R-tree's virtual table).
        var sqlName: String { "\(entity.name).\(index.name)" }
    }

    /// Every declared fetch index of the model, entities in model order.
    var fetchIndexes: [ResolvedFetchIndex] {
        model.entities.flatMap { entity in
            entity.fetchIndexes.compactMap { index -> ResolvedFetchIndex? in
                let storage = self.storage(of: entity)
                var columns: [String] = []
                for element in index.elements {
                    guard let slot = entity.slot(forKey: element.property), slot < storage.count else { return nil }
                    switch storage[slot] {
                    case .column(let name): columns.append(name)
                    case .toOne(let name, _, _): columns.append(name)
                    default: return nil   // refused by the model's validation
                    }
                }
                return ResolvedFetchIndex(entity: entity, index: index, table: table(for: entity).name, columns: columns)
            }
        }
    }

    /// The statements that create the fetch indexes, each safe to run again.
    func fetchIndexStatements() -> [String] {
        fetchIndexes.flatMap { index -> [String] in
            let name = Self.quote(index.sqlName)
            let table = Self.quote(index.table)
            guard index.index.isRTree else {
                let terms = zip(index.index.elements, index.columns).map { element, column in
                    "\(Self.quote(column)) \(element.isAscending ? "ASC" : "DESC")"
                }
                return ["CREATE INDEX IF NOT EXISTS \(name) ON \(table) (\(terms.joined(separator: ", ")))"]
            }
            return Self.rTreeStatements(name: index.sqlName, table: index.table, columns: index.columns)
        }
    }

    /// The R-tree virtual table, its initial rows and the triggers that keep it current.
    private static func rTreeStatements(name: String, table: String, columns: [String]) -> [String] {
        let quotedName = quote(name)
        let quotedTable = quote(table)
        let bounds = columns.enumerated().flatMap { position, _ in ["min\(position)", "max\(position)"] }
        let notNull = { (row: String) in columns.map { "\(row)\(quote($0)) IS NOT NULL" }.joined(separator: " AND ") }
        let values = { (row: String) in columns.flatMap { ["\(row)\(quote($0))", "\(row)\(quote($0))"] }.joined(separator: ", ") }
        let insert = "INSERT INTO \(quotedName) VALUES (NEW.\"_pk\", \(values("NEW.")))"
        let delete = "DELETE FROM \(quotedName) WHERE id = OLD.\"_pk\""
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(quotedName) USING rtree(id, \(bounds.joined(separator: ", ")))",
            // Filled from the table only when it was just made (an empty R-tree over rows).
            "INSERT INTO \(quotedName) SELECT \"_pk\", \(values("")) FROM \(quotedTable) WHERE \(notNull(""))"
                + " AND NOT EXISTS (SELECT 1 FROM \(quotedName))",
            "CREATE TRIGGER IF NOT EXISTS \(quote(name + "_insert")) AFTER INSERT ON \(quotedTable)"
                + " WHEN \(notNull("NEW.")) BEGIN \(insert); END",
            "CREATE TRIGGER IF NOT EXISTS \(quote(name + "_update")) AFTER UPDATE ON \(quotedTable)"
                + " BEGIN \(delete); INSERT INTO \(quotedName) SELECT NEW.\"_pk\", \(values("NEW.")) WHERE \(notNull("NEW.")); END",
            "CREATE TRIGGER IF NOT EXISTS \(quote(name + "_delete")) AFTER DELETE ON \(quotedTable)"
                + " BEGIN \(delete); END",
        ]
    }

    /// The names of the SQLite objects the fetch indexes need, for finding missing ones.
    var fetchIndexObjectNames: [String] { fetchIndexes.map(\.sqlName) }

    /// Whether this SQLite library has the R-tree module (`PRAGMA compile_options`).
    static func hasRTree(_ connection: SQLiteConnection) throws -> Bool {
        try connection.prepare("PRAGMA compile_options").rows().contains { row in
            if case .text(let option)? = row.first { option == "ENABLE_RTREE" } else { false }
        }
    }

    /// Creates the fetch indexes a document lacks; nothing when it has them all.
    /// - Throws: `.invalidModel` when the model has an R-tree index and this SQLite was
    ///   built without the R-tree module; SQLite's errors otherwise.
    func createMissingFetchIndexes(on connection: SQLiteConnection) throws {
        let wanted = fetchIndexObjectNames
        guard !wanted.isEmpty else { return }
        let present = Set(try connection.prepare("SELECT name FROM sqlite_schema").rows().compactMap { row -> String? in
            if case .text(let name)? = row.first { name } else { nil }
        })
        guard wanted.contains(where: { !present.contains($0) }) else { return }
        try requireRTreeSupport(connection)
        try connection.transaction(.immediate) {
            for statement in fetchIndexStatements() { try connection.execute(statement) }
        }
    }

    /// Refuses a model with an R-tree index when SQLite has no R-tree module.
    func requireRTreeSupport(_ connection: SQLiteConnection) throws {
        guard let rTree = fetchIndexes.first(where: \.index.isRTree), try !Self.hasRTree(connection) else { return }
        throw StrataError(.invalidModel,
                          "Fetch index '\(rTree.index.name)' of entity '\(rTree.entity.name)' is an R-tree index, and this SQLite library was built without the R-tree module (ENABLE_RTREE is not in PRAGMA compile_options).",
                          context: .init { $0.entity = rTree.entity.name; $0.constraint = rTree.index.name })
    }
}
