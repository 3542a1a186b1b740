import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// `strata undo` and `strata redo` of an import revert it in the store
/// (``ContextUndoManager/undoSavingInStore(redo:)``): the document, its history and the
/// undo stacks must end as the context's undo and a save leave them (docs/SEMANTICS.md,
/// docs/ARCHITECTURE.md "Undo").
/// Employees without relationships and with two indexes: an undo of their import takes
/// the records' values from the log when nothing follows the import
/// (``DocumentStore/logEnds(withGroup:)``), where the example model's employees (with a
/// department, projects, a manager) have their rows read back.
private let flatEmployeeModel: ManagedObjectModel = {
    let employee = EntityDescription("Employee", attributes: [
        AttributeDescription("firstName", .string),
        AttributeDescription("lastName", .string, isIndexed: true),
        AttributeDescription("salary", .integer64, isIndexed: true),
        AttributeDescription("startDate", .date),
        AttributeDescription("active", .boolean),
    ])
    return try! ManagedObjectModel(entities: [employee])
}()

@Suite struct StoreRevertTests {
    /// Whether a model's employees have relationships (the example model) or not.
    enum Model: CaseIterable {
        case example, flat

        var model: ManagedObjectModel { self == .example ? sharedExampleModel : flatEmployeeModel }
        /// The snapshot table employees are in (the example model's hierarchy is Person's).
        var table: String { self == .example ? "Person" : "Employee" }
    }

    /// An undoable batch insert of `count` employees without relationships (a group of
    /// inserts only, in two segments when `count` passes a chunk).
    private func importRows(_ count: Int, into stack: DocumentStack) throws {
        var number = 0
        let request = BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            row = employeeRow("Row\(number)", salary: Int64(number))
            return number > count
        }
        request.registersUndo = true
        request.actionName = "Import Employee"
        #expect(try stack.context.executeBatch(request).count == count)
    }

    /// Every employee's values by primary key, read from the store.
    private func records(_ stack: DocumentStack) throws -> [Int64: [PropertyValue]] {
        let entity = try #require(stack.model.entitiesByName["Employee"])
        let ids = try stack.store.objectIDs(for: entity, includingSubentities: true)
        let values = try stack.store.values(for: ids)
        return Dictionary(uniqueKeysWithValues: zip(ids, values).map { ($0.primaryKey, $1 ?? []) })
    }

    /// The document's history as the undo stacks read it back (a group saved in several
    /// segments joined, as ``ContextUndoManager/restoreHistory(_:)`` joins it): each group's
    /// id, kind, reverted group, action name, and its operations without store tags (their
    /// count and a digest of them in a stable order, so that a failure prints little).
    private func history(_ stack: DocumentStack) throws -> [String] {
        var joined: [SegmentGroup] = []
        for group in try stack.store.historyGroups() {
            if let last = joined.last, last.id == group.id { joined[joined.count - 1].operations += group.operations } else { joined.append(group) }
        }
        return joined.map { group in
            let operations = group.operations.map { operation -> String in
                switch operation {
                case .insert(let id, let values): "insert \(id.entity.name) \(id.primaryKey) \(values)"
                case .delete(let id, let values): "delete \(id.entity.name) \(id.primaryKey) \(values)"
                default: "other \(operation.objectID.primaryKey)"
                }
            }.sorted()
            let reverts = group.revertsGroup.map(String.init) ?? "-"
            return "\(group.id) \(group.kind) \(reverts) \(group.actionName): \(operations.count) operations, \(operations.joined(separator: ";").hashValue)"
        }
    }

    private func undoThroughContext(_ stack: DocumentStack, redo: Bool) throws {
        if redo { try stack.undo.redo() } else { try stack.undo.undo() }
        try stack.context.save()
    }

    @Test(arguments: [false, true], Model.allCases)
    func anImportUndoneAndRedoneInTheStoreEndsAsTheContextsUndoAndSaveLeaveIt(automaticCompaction: Bool, model: Model) throws {
        let configuration = automaticCompaction ? DocumentStore.Configuration() : manualCompaction()
        let inStore = try DocumentStack(model: model.model, configuration: configuration)
        let inContext = try DocumentStack(model: model.model, configuration: configuration)
        let rows = BatchInsertWriter.documentChunkSize + 100
        for stack in [inStore, inContext] { try importRows(rows, into: stack) }
        let imported = try records(inStore)
        let importedInContext = try records(inContext)
        #expect(imported.count == rows && imported == importedInContext)

        for (step, redo) in [false, true, false].enumerated() {
            #expect(try inStore.undo.undoSavingInStore(redo: redo), "step \(step)")
            try undoThroughContext(inContext, redo: redo)
            let (storeRecords, contextRecords) = (try records(inStore), try records(inContext))
            #expect(storeRecords == contextRecords, "step \(step)")
            #expect(storeRecords.count == (redo ? rows : 0), "step \(step)")
            let (storeHistory, contextHistory) = (try history(inStore), try history(inContext))
            #expect(storeHistory == contextHistory, "step \(step)")
            for stack in [inStore, inContext] {
                #expect(stack.undo.undoCount == (redo ? 1 : 0) && stack.undo.redoCount == (redo ? 0 : 1), "step \(step)")
                #expect((redo ? stack.undo.undoActionName : stack.undo.redoActionName) == "Import Employee", "step \(step)")
            }
        }
        // The stacks a reopened document rebuilds from the history are the same too; and
        // the group the store's undo recorded is redone from the log.
        for stack in [inStore, inContext] {
            try stack.reopen(configuration: configuration)
            try stack.context.restoreUndoHistory()
            #expect(stack.undo.undoCount == 0 && stack.undo.redoCount == 1 && stack.undo.redoActionName == "Import Employee")
        }
        #expect(try inStore.undo.undoSavingInStore(redo: true))
        try undoThroughContext(inContext, redo: true)
        let (redoneInStore, redoneInContext) = (try records(inStore), try records(inContext))
        #expect(redoneInStore == imported && redoneInContext == imported)
        let (storeHistory, contextHistory) = (try history(inStore), try history(inContext))
        #expect(storeHistory == contextHistory)
    }

    /// An undo of an import folded into the snapshot deletes every row while its own write
    /// folds (the indexes of the emptied table dropped and made again, docs/ARCHITECTURE.md
    /// "Undo"), and checks that its records still exist in batches of keys, without reading
    /// a row one by one: the rows it deletes are read once, in batches, for the values the
    /// deletes record.
    /// Employees without relationships are not read back at all: nothing follows their
    /// import in the log, so the import's inserts hold their values.
    @Test(arguments: Model.allCases)
    func anUndoThatFoldsAsItGoesEmptiesTheTableKeepsItsIndexesAndReadsNoRowOneByOne(model: Model) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("document.strata")
        var configuration = manualCompaction()
        // The undo's first chunk starts the fold; the import's rows are compacted first.
        configuration.compactionOperationThreshold = BatchInsertWriter.documentChunkSize
        configuration.indexRebuildMinimumRows = 10
        let stack = try DocumentStack.create(url, model: model.model, configuration: configuration)
        let table = model.table
        let rows = BatchInsertWriter.documentChunkSize + 100
        try importRows(rows, into: stack)
        try stack.store.compact()
        let imported = try records(stack)
        let indexes = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(table)' AND sql IS NOT NULL ORDER BY name"
        let declared = try sqlRows(url, indexes)
        #expect(declared.count >= 2, "\(table) has indexes to drop: \(declared)")

        let statements = Locked<[String]>([])
        try stack.store.traceStatements { sql in statements.withLock { $0.append(sql) } }
        #expect(try stack.undo.undoSavingInStore(redo: false))
        try stack.store.traceStatements(nil)
        #expect(try records(stack).isEmpty)
        #expect(try stack.store.logPosition.compactedThrough == stack.store.logPosition.last, "the undo folded its chunks")
        #expect(try sqlRows(url, indexes) == declared, "every index is back, as declared")
        #expect(try sqlRows(url, "PRAGMA integrity_check") == [[.text("ok")]])
        let traced = statements.withLock { $0 }
        #expect(traced.contains { $0.hasPrefix("DROP INDEX \"\(table)_") }, "the fold deleted the rows without their indexes")
        // Neither a row read nor an existence check of one record (`SELECT 1 … WHERE "_pk" = ?`).
        let singleRowReads = traced.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"\(table)\" WHERE \"_pk\" = ?") }
        #expect(singleRowReads.isEmpty, "\(singleRowReads.count) reads of one row, first: \(singleRowReads.first ?? "")")
        // Reads of the rows' values name their columns; the existence checks only keys.
        let valueReads = traced.filter { $0.hasPrefix("SELECT \"_pk\"") && $0.contains("\"firstName\"") && $0.contains("FROM \"\(table)\"") }
        // The import's keys fill their span, so they are asked for as spans (`BETWEEN`).
        let existenceChecks = traced.filter { $0.hasPrefix("SELECT \"_pk\"") && !$0.contains("\"firstName\"") && $0.contains("FROM \"\(table)\" WHERE \"_pk\" BETWEEN") }
        #expect(!existenceChecks.isEmpty && existenceChecks.count <= rows / 1_000, "\(existenceChecks.count) batched existence checks")
        switch model {
        case .example: #expect(!valueReads.isEmpty && valueReads.count <= rows / 100, "\(valueReads.count) batched reads")
        case .flat: #expect(valueReads.isEmpty, "\(valueReads.count) reads of values the import logged: \(valueReads.first ?? "")")
        }

        // The redo puts every record back as it was, findable through the rebuilt indexes,
        // having asked whether its records exist in batches, not one statement each.
        statements.withLock { $0 = [] }
        try stack.store.traceStatements { sql in statements.withLock { $0.append(sql) } }
        #expect(try stack.undo.undoSavingInStore(redo: true))
        try stack.store.traceStatements(nil)
        let redoTraced = statements.withLock { $0 }
        let singleRowChecks = redoTraced.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"\(table)\" WHERE \"_pk\" = ?") }
        #expect(singleRowChecks.isEmpty, "\(singleRowChecks.count) lookups of one record, first: \(singleRowChecks.first ?? "")")
        let redoChecks = redoTraced.filter { $0.hasPrefix("SELECT \"_pk\"") && $0.contains("FROM \"\(table)\" WHERE \"_pk\" BETWEEN") }
        #expect(!redoChecks.isEmpty && redoChecks.count <= rows / 1_000, "\(redoChecks.count) batched existence checks of the redo")
        #expect(try records(stack) == imported)
        let found = try stack.context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary == 77")))
        #expect(found.count == 1)
        #expect(try sqlRows(url, "PRAGMA integrity_check") == [[.text("ok")]])
        try stack.store.close()
    }

    @Test func theStorePathDeclinesWhatTheContextMustRevertAndChangesNothing() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        try importRows(20, into: stack)
        let imported = try records(stack)
        let entity = try #require(stack.model.entitiesByName["Employee"])
        let id = try #require(try stack.store.objectIDs(for: entity, includingSubentities: true).first)
        // A registered record of the group: the context must see it go.
        let employee = try stack.context.existingObject(with: id)
        #expect(try !stack.undo.undoSavingInStore(redo: false))
        let unchanged = try records(stack)
        #expect(stack.undo.undoCount == 1 && stack.undo.redoCount == 0 && unchanged == imported)
        #expect(!employee.isDeleted)

        // Unsaved changes in the context (a fresh one, with the history restored).
        try stack.reopen(configuration: manualCompaction())
        try stack.context.restoreUndoHistory()
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue(.string("Research"), forKey: "name")
        #expect(try !stack.undo.undoSavingInStore(redo: false))
        #expect(try records(stack) == imported)
        try stack.context.save()

        // A group of other operations (an update) on top.
        try stack.reopen(configuration: manualCompaction())
        try stack.context.restoreUndoHistory()
        // IDs of the reopened store (its tag is its own).
        let renamed = try #require(try stack.store.objectIDs(for: entity, includingSubentities: true).first)
        try stack.context.existingObject(with: renamed).setValue(.string("Renamed"), forKey: "firstName")
        try stack.context.save()
        try stack.reopen(configuration: manualCompaction())
        try stack.context.restoreUndoHistory()
        let groups = stack.undo.undoCount
        #expect(try !stack.undo.undoSavingInStore(redo: false))
        #expect(stack.undo.undoCount == groups && stack.undo.redoCount == 0)
        #expect(try records(stack)[id.primaryKey]?.contains(.string("Renamed")) == true)
    }

    @Test func aRecordDeletedSinceTheImportMakesTheStoreUndoAnErrorThatChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("document.strata")
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        try importRows(20, into: stack)
        let entity = try #require(stack.model.entitiesByName["Employee"])
        let id = try #require(try stack.store.objectIDs(for: entity, includingSubentities: true).last)
        // Another process deletes one of the imported records.
        let other = try DocumentStack.open(url, configuration: manualCompaction())
        other.context.delete(try other.context.existingObject(with: id))
        try other.context.save()
        try other.store.close()

        let error = strataError { _ = try stack.undo.undoSavingInStore(redo: false) }
        #expect(error?.code == .undo)
        #expect(error?.message.contains("no longer exists") == true)
        #expect(stack.undo.undoCount == 1 && stack.undo.redoCount == 0)
        #expect(try stack.store.objectIDs(for: entity, includingSubentities: true).count == 19)
        try stack.store.close()
    }
}
