import Foundation

/// What one compaction did.
public struct CompactionReport: Sendable, Hashable {
    /// Segments folded into the snapshot.
    public var segments: Int
    /// Records written (inserted or updated) in the snapshot.
    public var rowsWritten: Int
    /// Records deleted from the snapshot.
    public var rowsDeleted: Int
    /// Segments removed by the retention policy.
    public var segmentsDropped: Int
    /// The last segment now in the snapshot.
    public var compactedThrough: UInt64
}

extension DocumentState {
    /// Whether the uncompacted segments pass one of the configuration's thresholds (a
    /// threshold of 0 is off).
    /// `pending`: segments written but not yet counted (a held write's).
    func isCompactionDue(_ configuration: DocumentStore.Configuration, pending: PendingLog = PendingLog()) -> Bool {
        func passes(_ value: Int, _ threshold: Int) -> Bool { threshold > 0 && value >= threshold }
        return passes(uncompactedSegments + pending.segments, configuration.compactionSegmentThreshold)
            || passes(uncompactedBytes + pending.bytes, configuration.compactionByteThreshold)
            || passes(uncompactedOperations + pending.operations, configuration.compactionOperationThreshold)
            || passes(uncompactedDecodedBytes + pending.decodedBytes, configuration.compactionDecodedByteThreshold)
    }

    /// Writes the overlay into the snapshot tables, moves the compaction mark and applies
    /// the retention policy, in one transaction; then empties the overlay.
    ///
    /// - Parameter progress: called with (done, total) rows now and then.
    /// - Complexity: O(records changed since the last compaction).
    mutating func compact(configuration: DocumentStore.Configuration,
                          progress: ((Int, Int) -> Void)? = nil) throws -> CompactionReport {
        var report = CompactionReport(segments: 0, rowsWritten: 0, rowsDeleted: 0, segmentsDropped: 0, compactedThrough: 0)
        var raisedFormat = false
        // A smaller page cache while the rows are written: each page is written once, and a
        // full 64 MiB cache (with the sorter SQLite sizes by it) beside a big context's
        // objects was most of a bulk save's peak memory (docs/ARCHITECTURE.md, "Compaction
        // and retention").
        try connection.withPageCacheLimited(to: configuration.compactionPageCacheSize) {
            try connection.transaction(.immediate) {
                try catchUp()
                let total = overlay.rows.count + overlay.deleted.count
                var done = 0
                let deletedTexts = try textsOfDeletedRecords()
                var deleter = SnapshotRowDeleter(connection: connection, schema: schema)
                for id in overlay.deleted.sorted() {
                    try deleter.delete(id)
                    report.rowsDeleted += 1
                    done += 1
                    if done % 10_000 == 0 { progress?(done, total) }
                }
                let rows = overlay.rows
                var rowsByTable: [String: Int] = [:]
                for id in rows.keys { rowsByTable[schema.table(for: id.entity).name, default: 0] += 1 }
                let deletions = done
                func writeRows() throws {
                    report.rowsWritten = 0
                    done = deletions
                    let indexes = try SnapshotIndexRebuild(connection: connection, rowsByTable: rowsByTable,
                                                           minimumRows: configuration.indexRebuildMinimumRows)
                    try schema.clearConstrainedColumns(of: rows.keys, on: connection)
                    var writer = SnapshotRowWriter(connection: connection, schema: schema)
                    try rows.forEachInIDOrder { id, values in
                        try writer.write(id, values)
                        report.rowsWritten += 1
                        done += 1
                        if done % 10_000 == 0 { progress?(done, total) }
                    }
                    try indexes.restore()
                }
                try schema.writeKeepingConstraintIndexes(on: connection, writeRows)
                raisedFormat = try writeTexts(deletedTexts)
                progress?(total, total)
                report.segments = uncompactedSegments
                report.compactedThrough = lastSequence
                try DocumentFile.writeMeta(connection, key: "compactedThrough", .integer(Int64(lastSequence)))
                report.segmentsDropped = try applyRetention(configuration.retention)
            }
        }
        if raisedFormat { meta.formatVersion = DocumentFile.packedFormatVersion }
        completeFold()
        return report
    }

    /// Deletes compacted segments the policy does not keep; returns how many.
    func applyRetention(_ retention: DocumentStore.HistoryRetention) throws -> Int {
        let limit: Int64
        switch retention {
        case .all: return 0
        case .none: limit = Int64(lastSequence)
        case .last(let count): limit = Int64(lastSequence) - Int64(count)
        }
        guard limit > 0 else { return 0 }
        // Group ids are handed out above the largest one recorded; once the rows that record
        // it are gone, the counter keeps every writer above it.
        try DocumentFile.writeMeta(connection, key: "groupCounter", .integer(Int64(largestGroupID)))
        return try LogTables.delete(connection, through: limit)
    }
}

/// Upserts records into snapshot tables with cached statements.
struct SnapshotRowWriter {
    let connection: SQLiteConnection
    let schema: SnapshotSchema
    /// Statements owned by the writer: looking a statement up by its SQL text hashed the
    /// whole text once per record.
    private var upserts: [Int: Upsert] = [:]
    private var joinStatements: [String: (delete: SQLiteStatement, insert: SQLiteStatement)] = [:]

    init(connection: SQLiteConnection, schema: SnapshotSchema) {
        self.connection = connection
        self.schema = schema
    }

    mutating func write(_ id: ManagedObjectID, _ values: [PropertyValue]) throws {
        let entity = id.entity
        let upsert = try upsert(for: entity)
        // Bound one value at a time from the plan made with the statement: an array of
        // bindings per record, and a walk over the slots' storage, cost more than SQLite's
        // own insert in a bulk fold (docs/ARCHITECTURE.md, "Compaction and retention").
        let statement = upsert.statement
        try statement.reset()
        var position = 1
        try statement.bind(.integer(id.primaryKey), at: position)
        position += 1
        if upsert.hasEntityColumn {
            try statement.bind(.integer(Int64(entity.index)), at: position)
            position += 1
        }
        for binding in upsert.bindings {
            switch binding {
            case .column(let slot):
                try statement.bind(SnapshotValueCoding.encode(values[slot]), at: position)
            case .toOne(let slot, let hasEntityColumn):
                if case .object(let target) = values[slot] {
                    try statement.bind(.integer(target.primaryKey), at: position)
                    if hasEntityColumn { try statement.bind(.integer(Int64(target.entity.index)), at: position + 1) }
                } else {
                    try statement.bind(.null, at: position)
                    if hasEntityColumn { try statement.bind(.null, at: position + 1) }
                }
                if hasEntityColumn { position += 1 }
            }
            position += 1
        }
        while try statement.step() == .row {}
        try statement.reset()
        for (slot, join) in upsert.joins {
            let (delete, insert) = try statements(for: join)
            try delete.run([.integer(id.primaryKey)])
            for (position, member) in values[slot].objectIDs.enumerated() {
                var row: [SQLiteValue] = [.integer(id.primaryKey)]
                if join.sourceHasEntity { row.append(.integer(Int64(entity.index))) }
                row.append(.integer(member.primaryKey))
                if join.destinationHasEntity { row.append(.integer(Int64(member.entity.index))) }
                if join.isOrdered { row.append(.integer(Int64(position))) }
                try insert.run(row)
            }
        }
    }

    private mutating func statements(for join: SnapshotSchema.JoinTable) throws -> (delete: SQLiteStatement, insert: SQLiteStatement) {
        if let cached = joinStatements[join.name] { return cached }
        var columns = ["\"source\""]
        if join.sourceHasEntity { columns.append("\"source_entity\"") }
        columns.append("\"destination\"")
        if join.destinationHasEntity { columns.append("\"destination_entity\"") }
        if join.isOrdered { columns.append("\"position\"") }
        let table = SnapshotSchema.quote(join.name)
        let made = (
            delete: try connection.makeStatement("DELETE FROM \(table) WHERE \"source\" = ?"),
            insert: try connection.makeStatement(
                "INSERT OR REPLACE INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"))
        joinStatements[join.name] = made
        return made
    }

    /// A class: handed out for every record, a struct's three references were three
    /// retains and releases per row of a bulk fold.
    private final class Upsert {
        let statement: SQLiteStatement
        /// What is bound after the system columns, in column order.
        let bindings: [Binding]
        let hasEntityColumn: Bool
        /// The to-manys the record owns in join tables, by slot.
        let joins: [(slot: Int, table: SnapshotSchema.JoinTable)]

        init(statement: SQLiteStatement, bindings: [Binding], hasEntityColumn: Bool,
             joins: [(slot: Int, table: SnapshotSchema.JoinTable)]) {
            self.statement = statement
            self.bindings = bindings
            self.hasEntityColumn = hasEntityColumn
            self.joins = joins
        }
    }

    /// One slot's parameters of the upsert.
    private enum Binding {
        /// A value column.
        case column(slot: Int)
        /// A to-one's key column, and its entity column when the destination has one.
        case toOne(slot: Int, hasEntityColumn: Bool)
    }

    private mutating func upsert(for entity: EntityDescription) throws -> Upsert {
        if let cached = upserts[entity.index] { return cached }
        // The slots' storage only for a statement not made yet: looked up for every record,
        // it cost a dictionary lookup and a retain per row of a bulk fold.
        let storage = schema.storage(of: entity)
        let table = schema.table(for: entity)
        var columns = ["\"_pk\""]
        if table.hasEntityColumn { columns.append("\"_entity\"") }
        var bindings: [Binding] = []
        var joins: [(slot: Int, table: SnapshotSchema.JoinTable)] = []
        for (slot, slotStorage) in storage.enumerated() {
            switch slotStorage {
            case .column(let name):
                columns.append(SnapshotSchema.quote(name))
                bindings.append(.column(slot: slot))
            case .toOne(let column, let entityColumn, _):
                columns.append(SnapshotSchema.quote(column))
                if let entityColumn { columns.append(SnapshotSchema.quote(entityColumn)) }
                bindings.append(.toOne(slot: slot, hasEntityColumn: entityColumn != nil))
            case .join(let join, false):
                joins.append((slot, join))
            default:
                continue
            }
        }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" } + (table.hasVersionColumn ? ["\"_version\" = \"_version\" + 1"] : [])
        let values = columns.map { _ in "?" }.joined(separator: ", ")
        // A record of a hierarchy without `_entity` that has no stored properties has
        // nothing to update: an existing row is already right.
        let onConflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
        let sql = "INSERT INTO \(SnapshotSchema.quote(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(values)) ON CONFLICT(\"_pk\") \(onConflict)"
        let made = Upsert(statement: try connection.makeStatement(sql), bindings: bindings, hasEntityColumn: table.hasEntityColumn,
                          joins: joins)
        upserts[entity.index] = made
        return made
    }
}
