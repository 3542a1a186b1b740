import Foundation

/// A document's snapshot tables as plain rows, folded through one segment: what
/// StrataPostgres keeps on a server as real tables (docs/POSTGRES.md, "Snapshot tables")
/// so that a store opening the document loads them and replays only the segments after.
///
/// The tables are the ones ``SnapshotSchema`` lays out for the model (current layout): one
/// per root entity (`_pk`, `_entity` where the hierarchy has several entities, a column per
/// stored attribute and to-one) and one per join table. Package-only.
package struct SnapshotTables: Sendable {
    /// A column's storage class (SQLite's; the server maps each to a type of its own).
    package enum ColumnType: String, Sendable {
        case integer, real, text, blob
    }

    /// One column of a table.
    package struct Column: Sendable {
        package let name: String
        package let type: ColumnType
        package let isNullable: Bool
    }

    /// One table: its layout and (when read from a document) its rows, in primary key order.
    package struct Table: Sendable {
        package let name: String
        package let columns: [Column]
        /// The primary key's columns.
        package let primaryKey: [String]
        /// The rows, each with one value per column in ``columns`` order.
        package var rows: [[SQLiteValue]] = []
    }

    /// The layout the tables are in (a document format's snapshot layout): a snapshot
    /// stored elsewhere in another layout does not fit this Strata's tables.
    package static let layoutVersion = SnapshotSchema.Layout.current.rawValue

    /// The last segment folded into the rows.
    package var through: Int64
    /// Every snapshot table of the model, in a fixed order (root tables by entity index,
    /// then join tables by name).
    package var tables: [Table]

    /// Rows folded through `through`.
    package init(through: Int64, tables: [Table]) {
        self.through = through
        self.tables = tables
    }

    /// The tables of a model's snapshot, without rows.
    /// - Throws: `.invalidModel` when the model cannot have a snapshot (reserved names).
    package static func layout(of model: ManagedObjectModel) throws -> [Table] {
        let schema = try SnapshotSchema(model: model, layout: .current)
        var tables: [Table] = []
        for table in schema.tables.values.sorted(by: { $0.root.index < $1.root.index }) {
            var columns = [Column(name: "_pk", type: .integer, isNullable: false)]
            if table.hasEntityColumn { columns.append(Column(name: "_entity", type: .integer, isNullable: false)) }
            if table.hasVersionColumn { columns.append(Column(name: "_version", type: .integer, isNullable: false)) }
            for column in table.columns {
                let type: ColumnType = switch column.kind {
                case .attribute(let attribute): ColumnType(rawValue: SnapshotSchema.sqlType(attribute).lowercased()) ?? .blob
                case .foreignKey, .foreignKeyEntity: .integer
                }
                columns.append(Column(name: column.name, type: type, isNullable: true))
            }
            tables.append(Table(name: table.name, columns: columns, primaryKey: ["_pk"]))
        }
        for join in schema.joinTables.values.sorted(by: { $0.name < $1.name }) {
            var columns = [Column(name: "source", type: .integer, isNullable: false),
                           Column(name: "destination", type: .integer, isNullable: false)]
            if join.sourceHasEntity { columns.append(Column(name: "source_entity", type: .integer, isNullable: false)) }
            if join.destinationHasEntity { columns.append(Column(name: "destination_entity", type: .integer, isNullable: false)) }
            if join.isOrdered { columns.append(Column(name: "position", type: .integer, isNullable: false)) }
            tables.append(Table(name: join.name, columns: columns, primaryKey: ["source", "destination"]))
        }
        // Texts' identities travel with the rows (docs/FORMAT.md §18): a replica made from
        // the snapshot must name the same characters as the log after it.
        if model.hasTexts {
            tables.append(Table(name: DocumentState.textTable, columns: [
                Column(name: "entity", type: .text, isNullable: false), Column(name: "pk", type: .integer, isNullable: false),
                Column(name: "attribute", type: .text, isNullable: false), Column(name: "state", type: .blob, isNullable: false),
            ], primaryKey: ["entity", "pk", "attribute"]))
        }
        return tables
    }
}

extension DocumentStore {
    /// The snapshot tables as committed, with the sequence they are folded through, read
    /// in one read transaction of a connection of its own: no lock of the store is held,
    /// so its saves and compactions go on meanwhile. (``compact(progress:)`` first to have
    /// every segment of the file in them.)
    /// - Throws: `.invalidArgument` when the store is closed; SQLite's errors.
    package func snapshotTables() throws -> SnapshotTables {
        _ = try withOpenState { $0.lastSequence }
        let path = url.path
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, flags: [.readOnly], busyTimeout: configuration.busyTimeout)
        } catch {
            throw DocumentOpenFailure.describe(error, path: path, busyTimeout: configuration.busyTimeout)
        }
        defer { connection.close() }
        // The first read after BEGIN fixes what every later read sees: the rows and the
        // compaction mark are one version of the file.
        try connection.execute("BEGIN DEFERRED")
        defer { _ = try? connection.execute("ROLLBACK") }
        let meta = try DocumentFile.readMeta(connection, path: path, checksIdentity: false)
        guard SnapshotSchema.Layout(documentFormat: meta.formatVersion) == .current else {
            throw StrataError(.invalidArgument, "\(path) has the snapshot layout of document format \(meta.formatVersion); only the current layout is exported.",
                              context: .init { $0.path = path })
        }
        var tables = try SnapshotTables.layout(of: model)
        let hasTextTable = try !connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
            .rows([.text(DocumentState.textTable)]).isEmpty
        for index in tables.indices {
            let table = tables[index]
            if table.name == DocumentState.textTable && !hasTextTable { continue }   // no text edited yet
            let columns = table.columns.map { SnapshotSchema.quote($0.name) }.joined(separator: ", ")
            let order = table.primaryKey.map(SnapshotSchema.quote).joined(separator: ", ")
            tables[index].rows = try connection.prepare("SELECT \(columns) FROM \(SnapshotSchema.quote(table.name)) ORDER BY \(order)").rows()
        }
        return SnapshotTables(through: Int64(meta.compactedThrough), tables: tables)
    }

    /// Creates the document file of a replica whose snapshot tables hold `snapshot` (folded
    /// through `snapshot.through`, its compaction mark) and whose counters are at least
    /// the given ones, before any store opens it; the log starts empty after
    /// `snapshot.through`. Open it with ``init(openingAt:model:configuration:)``.
    /// - Throws: `.io` when the file exists; `.corruptDocument` naming the table and row
    ///   when a row does not fit its table (a value of the wrong kind, a duplicate key).
    package static func createReplica(at url: URL, model: ManagedObjectModel, identifier: String, snapshot: SnapshotTables,
                                      keyCounters: [String: Int64], groupCounter: UInt64) throws {
        if FileManager.default.fileExists(atPath: url.path) {
            throw StrataError(.io, "\(url.path) already exists.", context: .init { $0.path = url.path })
        }
        let connection = try connect(url, configuration: Configuration(), create: true)
        defer { connection.close() }
        try DocumentFile.create(on: connection, model: model, identifier: identifier)
        let expected = try SnapshotTables.layout(of: model)
        try connection.transaction(.exclusive) {
            if snapshot.tables.contains(where: { $0.name == DocumentState.textTable }) {
                try connection.execute(DocumentState.createTextTable)
            }
            for table in snapshot.tables {
                guard let layout = expected.first(where: { $0.name == table.name }),
                      layout.columns.map(\.name) == table.columns.map(\.name) else {
                    throw StrataError(.corruptDocument, "The snapshot table '\(table.name)' does not match the model's tables.",
                                      context: .init { $0.table = table.name })
                }
                let names = table.columns.map { SnapshotSchema.quote($0.name) }.joined(separator: ", ")
                let marks = table.columns.map { _ in "?" }.joined(separator: ", ")
                let insert = try connection.prepare("INSERT INTO \(SnapshotSchema.quote(table.name)) (\(names)) VALUES (\(marks))")
                for row in table.rows {
                    do {
                        try insert.run(row)
                    } catch let error as StrataError {
                        throw StrataError(.corruptDocument,
                                          "A row of snapshot table '\(table.name)' (\(row.first?.description ?? "empty")) cannot be stored: \(error.message)",
                                          context: .init { $0.table = table.name })
                    }
                }
            }
            try DocumentFile.writeMeta(connection, key: "compactedThrough", .integer(snapshot.through))
            for (name, key) in keyCounters { try DocumentFile.writeMeta(connection, key: "keyCounter.\(name)", .integer(key)) }
            try DocumentFile.writeMeta(connection, key: "groupCounter", .integer(Int64(clamping: groupCounter)))
            // Packed text states (docs/FORMAT.md §21) make the replica format 3, as they made
            // the document they came from.
            let packed = snapshot.tables.first { $0.name == DocumentState.textTable }?.rows.contains { row in
                if case .blob(let state)? = row.last { return TextStatePacking.isPacked(state) }
                return false
            } ?? false
            if packed { try DocumentFile.raiseToPackedFormat(connection) }
        }
        try connection.execute("PRAGMA journal_mode=WAL")
    }
}
