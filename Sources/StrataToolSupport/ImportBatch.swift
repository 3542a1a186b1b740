import Foundation
import Strata

/// `strata import` through ``BatchInsertRequest``: rows are filled by slot as the request
/// asks for them (one at a time from the streaming reader), so neither the file nor a
/// managed object per row is ever held; the request registers undo, so the import is one
/// undo group ("Import ENTITY").
///
/// Rows that name each other (`_uri`) take IDs reserved before the insert
/// (``ManagedObjectContext/reserveObjectIDs(forEntityName:count:)``): a first pass over the
/// file records which rows have a `_uri`, the second inserts them. A file of several
/// entities goes through the context instead (``ImportRows/insert(next:progress:defaultEntity:into:)``).
package enum ImportBatch {
    /// Why a batch attempt stopped without writing anything.
    private enum Retry: Error {
        /// Rows refer to rows of the file: read it once more to reserve their IDs.
        case reserveIDs
        /// A row of another entity: the batch inserts one entity.
        case context
    }

    /// The rows of the file, shared with the row handler (an escaping closure).
    private final class Rows {
        var reader: ImportRowReader
        var pending: ImportRow?
        init(_ reader: ImportRowReader) { self.reader = reader }
        func next() throws -> ImportRow? {
            if let row = pending { pending = nil; return row }
            return try reader.next()
        }
    }

    /// A plain import's reader and counts, shared with the row handler.
    private final class PlainRows {
        var reader: ImportRowReader
        var count = 0
        var lastRow: Int?
        init(_ reader: ImportRowReader) { self.reader = reader }
    }

    /// Imports every row of the file as one undoable batch insert.
    /// - Parameters:
    ///   - open: a new reader of the file from its start (called once or twice).
    ///   - progress: called now and then while rows are read, with the phase ("Reading":
    ///     the first pass that finds which rows are named; "Writing": the rows read, checked
    ///     and written) and the rows so far.
    /// - Returns: How many objects were inserted, how many rows merged into records that
    ///   held their uniqueness keys (under a trump merge policy of the session's context),
    ///   and the undo action name; or nil when the file holds several entities and needs the
    ///   context path (nothing was written).
    /// - Throws: The first bad row's error, its message starting "Import row N".
    package static func insert(
        open: () throws -> ImportRowReader, defaultEntity: String?, into session: some ImportDestination,
        progress: @escaping (ToolProgressBar.Phase, Int) -> Void
    ) throws -> (count: Int, merged: Int, action: String)? {
        do {
            return try attempt(open(), uris: nil, defaultEntity: defaultEntity, into: session, progress: progress)
        } catch Retry.context {
            return nil
        } catch Retry.reserveIDs {
            // The first pass: which rows have a `_uri` (the last row naming one gets it, as
            // in the context path), and that all rows are of one entity.
            var reader = try open()
            var named: [String: Int] = [:]
            var entities = Set<String?>()
            var ordinal = 0
            while let row = try reader.next() {
                ordinal += 1
                entities.insert(row.entity)
                if let uri = row.uri { named[uri] = ordinal }
                if ordinal % 1024 == 0 { progress(.reading, ordinal) }
            }
            progress(.reading, ordinal)
            guard entities.count <= 1 else { return nil }
            let fallback = try defaultEntity.map(session.entity(named:))
            let entityName = entities.first.flatMap { $0 } ?? fallback?.name ?? ""
            var uris: [String: (ordinal: Int, id: ManagedObjectID)] = [:]
            if !named.isEmpty, !entityName.isEmpty {
                let ids = try session.context.reserveObjectIDs(forEntityName: entityName, count: named.count)
                for ((uri, ordinal), id) in zip(named.sorted { $0.value < $1.value }, ids) { uris[uri] = (ordinal, id) }
            }
            do {
                return try attempt(open(), uris: uris, defaultEntity: defaultEntity, into: session, progress: progress)
            } catch is Retry {
                return nil
            }
        }
    }

    /// One batch insert of the file's rows. Without `uris` it stops (`Retry`) at the first
    /// reference that may name a row of the file.
    private static func attempt(
        _ reader: ImportRowReader, uris: [String: (ordinal: Int, id: ManagedObjectID)]?, defaultEntity: String?,
        into session: some ImportDestination, progress: @escaping (ToolProgressBar.Phase, Int) -> Void
    ) throws -> (count: Int, merged: Int, action: String)? {
        var reader = reader
        let fallback = try defaultEntity.map(session.entity(named:))
        if let header = try reader.csvHeader(), let entity = fallback, !header.contains("_entity"), !header.contains("_uri"),
           let plain = ImportPlainCSV(header: header, entity: entity) {
            return try attemptPlain(reader, plain, header: header, entity: entity, into: session, progress: progress)
        }
        let rows = Rows(reader)
        guard let first = try rows.next() else { return nil }
        var entity: EntityDescription!
        try ImportRows.rowContext(first) { entity = try ImportValues.entity(of: first, fallback: fallback, in: session) }
        rows.pending = first
        var count = 0
        var lastRow: Int?
        var sawURI = false
        var sawReference = false
        var resolved: [String: ManagedObjectID] = [:]
        // How each column goes into a row, resolved once per position (a CSV's columns come in
        // the same order in every row; a JSON object's keys usually do): a row is filled by
        // slot, with no property name hashed (docs/ARCHITECTURE.md, "Batch requests and
        // merges").
        var columns: [ImportValues.Column] = []
        let request = BatchInsertRequest(entityName: entity.name) { (values: inout StoreBatchInsert.Row) in
            guard let row = try rows.next() else { return true }
            try ImportRows.rowContext(row) {
                if let name = row.entity, name != entity.name { throw Retry.context }
                if let uri = row.uri {
                    if uris == nil, sawReference { throw Retry.reserveIDs }
                    sawURI = true
                    if let reserved = uris?[uri], reserved.ordinal == count + 1 {
                        values.objectID = reserved.id
                    }
                }
                for (position, (key, value)) in row.values.enumerated() {
                    let column: ImportValues.Column
                    if position < columns.count, columns[position].key == key {
                        column = columns[position]
                    } else {
                        column = try ImportValues.Column(key: key, of: entity, row: count + 1)
                        if position < columns.count { columns[position] = column } else if position == columns.count { columns.append(column) }
                    }
                    guard let relationship = column.relationship else {
                        values.values[column.slot] = try ImportValues.attribute(value, key: key, type: column.type)
                        continue
                    }
                    let references = try ImportValues.references(value, key: key)
                    if !references.isEmpty {
                        if uris == nil, sawURI { throw Retry.reserveIDs }
                        sawReference = true
                    }
                    let ids = try references.map { reference -> ManagedObjectID in
                        if let id = uris?[reference]?.id ?? resolved[reference] { return id }
                        let id: ManagedObjectID
                        if uris == nil {
                            // Not in the document: perhaps a row of the file names it.
                            guard let found = try? session.objectID(reference) else { throw Retry.reserveIDs }
                            id = found
                        } else {
                            id = try ImportValues.existing(reference, key: key, in: session)
                        }
                        resolved[reference] = id
                        return id
                    }
                    values.values[column.slot] = try ImportValues.relationshipValue(ids, relationship)
                }
            }
            count += 1
            lastRow = row.number
            if count % 1024 == 0 { progress(.writing, count) }
            return false
        }
        return try execute(request, entity: entity, in: session) { (count, lastRow) }
    }

    /// The plain case (``ImportPlainCSV``): every row's cells straight into its slots.
    private static func attemptPlain(
        _ reader: ImportRowReader, _ plain: ImportPlainCSV, header: [String], entity: EntityDescription,
        into session: some ImportDestination, progress: @escaping (ToolProgressBar.Phase, Int) -> Void
    ) throws -> (count: Int, merged: Int, action: String)? {
        let reading = PlainRows(reader)
        guard try reading.reader.nextCSVRecord(columns: header.count) != nil else { return nil }
        var hasRow = true
        let request = BatchInsertRequest(entityName: entity.name) { (values: inout StoreBatchInsert.Row) in
            if !hasRow {
                guard try reading.reader.nextCSVRecord(columns: header.count) != nil else { return true }
            }
            hasRow = false
            let number = reading.reader.rowNumber
            do {
                try plain.fill(&values, from: &reading.reader)
            } catch var error as StrataError {
                error.message = "Import row \(number): \(error.message)"
                error.context.row = number
                throw error
            }
            reading.count += 1
            reading.lastRow = number
            if reading.count % 1024 == 0 { progress(.writing, reading.count) }
            return false
        }
        return try execute(request, entity: entity, in: session) { (reading.count, reading.lastRow) }
    }

    /// Runs an import's request as one undo group ("Import ENTITY"); `rows` gives how many
    /// rows the handler filled and the number of the last, once it has run.
    private static func execute(
        _ request: BatchInsertRequest, entity: EntityDescription, in session: some ImportDestination,
        rows: () -> (count: Int, lastRow: Int?)
    ) throws -> (count: Int, merged: Int, action: String) {
        let action = "Import \(entity.name)"
        request.registersUndo = true
        // No IDs collected: the count comes from the handler, and the document's next
        // command reads the records from the store (an ID is 24 B, in a list and a set).
        request.resultType = .statusOnly
        request.actionName = action
        let result: BatchResult
        do {
            result = try session.context.executeBatch(request)
        } catch var error as StrataError where error.context.row == rows().count && !error.message.hasPrefix("Import row") {
            // The request checks a row right after the handler filled it: the last row read.
            if let row = rows().lastRow { error.message = "Import row \(row): " + error.message; error.context.row = row }
            throw error
        }
        // The rows the request did not insert merged into records holding their keys.
        return (result.count, rows().count - result.count, action)
    }
}
