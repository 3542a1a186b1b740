import Foundation

/// Deletes records from the snapshot tables — each record's row in its root entity's table
/// and its rows in the join tables of the to-manys it is on either side of — with
/// statements made once per table.
///
/// Why its own statements: a fold deletes every record an undo of an import deletes, and
/// building each statement's SQL and looking it up in the connection's cache once per
/// record cost as much as SQLite's own delete (docs/ARCHITECTURE.md, "Undo").
struct SnapshotRowDeleter {
    let connection: SQLiteConnection
    let schema: SnapshotSchema
    /// The statements deleting a record of a root entity, by the root's index.
    private var statements: [Int: [SQLiteStatement]] = [:]

    init(connection: SQLiteConnection, schema: SnapshotSchema) {
        self.connection = connection
        self.schema = schema
    }

    /// Deletes the record's rows (none when it has none).
    mutating func delete(_ id: ManagedObjectID) throws {
        for statement in try statements(for: id.entity.rootEntity) {
            try statement.reset()
            try statement.bind(id.primaryKey, at: 1)
            while try statement.step() == .row {}
            try statement.reset()
        }
    }

    /// The root table's delete first, then one per join table the root is an end of.
    private mutating func statements(for root: EntityDescription) throws -> [SQLiteStatement] {
        if let made = statements[root.index] { return made }
        var made = [try connection.makeStatement("DELETE FROM \(SnapshotSchema.quote(root.name)) WHERE \"_pk\" = ?")]
        for join in schema.joinTables.values.sorted(by: { $0.name < $1.name }) {
            let table = SnapshotSchema.quote(join.name)
            if join.owner.rootEntity === root {
                made.append(try connection.makeStatement("DELETE FROM \(table) WHERE \"source\" = ?"))
            }
            if schema.model.entities[join.relationship.destinationIndex].rootEntity === root {
                made.append(try connection.makeStatement("DELETE FROM \(table) WHERE \"destination\" = ?"))
            }
        }
        statements[root.index] = made
        return made
    }
}
