import Foundation
import Strata

/// `strata import` through ``BatchInsertRequest``: rows become dictionaries as the request
/// asks for them (one at a time from the streaming reader), so neither the file nor a
/// managed object per row is ever held; the request registers undo, so the import is one
/// undo group. Files the batch cannot take — rows of another entity than the first row's,
/// or relationships that may refer to rows of the same file (`_uri`s) — go through the
/// context instead (``ImportRows/insert(next:progress:defaultEntity:into:)``, two passes).
package enum ImportBatch {
    /// Thrown out of the row handler when the file needs the context path: the batch
    /// request fails and writes nothing.
    private struct NeedsContext: Error {}

    /// The reader, shared with the row handler (an escaping closure).
    private final class Rows {
        var reader: ImportRowReader
        var pending: ImportRow?
        init(_ reader: ImportRowReader) { self.reader = reader }
        func next() throws -> ImportRow? {
            if let row = pending { pending = nil; return row }
            return try reader.next()
        }
    }

    /// Imports every row of `reader` as one undoable batch insert.
    /// - Returns: How many objects were inserted and the undo action name ("Import
    ///   ENTITY"), or nil when the file needs the context path (nothing was written).
    /// - Throws: The first bad row's error, its message starting "Import row N".
    package static func insert(
        _ reader: ImportRowReader, defaultEntity: String?, into session: some ImportDestination,
        progress: @escaping () -> Void
    ) throws -> (count: Int, action: String)? {
        let rows = Rows(reader)
        let fallback = try defaultEntity.map(session.entity(named:))
        guard let first = try rows.next() else { return nil }
        var entity: EntityDescription!
        try ImportRows.rowContext(first) { entity = try ImportValues.entity(of: first, fallback: fallback, in: session) }
        rows.pending = first
        var count = 0
        var sawURI = false
        var sawReference = false
        var resolved: [String: ManagedObjectID] = [:]
        var lastRow: Int?
        let request = BatchInsertRequest(entityName: entity.name) { values in
            guard let row = try rows.next() else { return true }
            try ImportRows.rowContext(row) {
                if let name = row.entity, name != entity.name { throw NeedsContext() }
                if row.uri != nil {
                    if sawReference { throw NeedsContext() }
                    sawURI = true
                }
                values.removeAll(keepingCapacity: true)
                for (key, value) in row.values {
                    if let relationship = entity.relationshipsByName[key] {
                        let references = try ImportValues.references(value, key: key)
                        if !references.isEmpty {
                            if sawURI { throw NeedsContext() }
                            sawReference = true
                        }
                        let ids = try references.map { reference -> ManagedObjectID in
                            if let id = resolved[reference] { return id }
                            // Not in the document: perhaps a row further on names it.
                            guard let id = try? session.objectID(reference) else { throw NeedsContext() }
                            resolved[reference] = id
                            return id
                        }
                        values[key] = try ImportValues.relationshipValue(ids, relationship)
                    } else {
                        values[key] = try ImportValues.attribute(value, key: key, of: entity)
                    }
                }
            }
            count += 1
            lastRow = row.number
            if count % 1024 == 0 { progress() }
            return false
        }
        let action = "Import \(entity.name)"
        request.registersUndo = true
        request.resultType = .count
        request.actionName = action
        do {
            _ = try session.context.executeBatch(request)
        } catch is NeedsContext {
            return nil
        } catch var error as StrataError where error.context["row"] == String(count) && !error.message.hasPrefix("Import row") {
            // The request checks a row right after the handler filled it: the last row read.
            if let row = lastRow { error.message = "Import row \(row): " + error.message; error.context["row"] = String(row) }
            throw error
        }
        return (count, action)
    }
}
