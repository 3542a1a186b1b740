import Foundation
import Testing
@testable import Strata

/// The employees, departments and projects in the store, by name, with their relationships
/// by name: what an undo must bring back exactly.
private func graphPicture(_ context: ManagedObjectContext) throws -> [String: String] {
    let fresh = ManagedObjectContext(coordinator: context.coordinator)
    var picture: [String: String] = [:]
    func name(_ object: ManagedObject) throws -> String {
        try object.string(object.entity.slot(forKey: "firstName") != nil ? "firstName" : "name") ?? "?"
    }
    for entity in ["Employee", "Department", "Project"] {
        for object in try fresh.fetch(FetchRequest(entityName: entity)) {
            var parts: [String] = []
            for relationship in object.entity.relationships.sorted(by: { $0.name < $1.name }) {
                let members = try object.value(forKey: relationship.name).objectIDs.map { try name(fresh.existingObject(with: $0)) }
                parts.append("\(relationship.name)=\(members.sorted().joined(separator: ","))")
            }
            if object.entity.slot(forKey: "salary") != nil { parts.append("salary=\(try object.value(forKey: "salary"))") }
            picture["\(entity) \(try name(object))"] = parts.joined(separator: " ")
        }
    }
    return picture
}

/// Runs `body` against a document (saving, closing, reopening and restoring the undo
/// history between steps when `reopening`) or a store in memory.
private struct UndoableBatchHarness {
    let stack: DocumentStack?
    let fixture: BatchFixture
    let reopening: Bool

    init(_ kind: BatchStoreKind, reopening: Bool) throws {
        fixture = try BatchFixture(kind)
        stack = fixture.keepAlive as? DocumentStack
        self.reopening = reopening && stack != nil
    }

    var context: ManagedObjectContext { stack?.context ?? fixture.context }
    var undo: ContextUndoManager { context.undoManager! }

    /// Saves; when reopening, closes and reopens the document and restores its history.
    func checkpoint() throws {
        try context.save()
        guard reopening, let stack else { return }
        try stack.reopen()
        try stack.context.restoreUndoHistory()
    }
}

@Suite struct UndoableBatchTests {
    static let cases: [(BatchStoreKind, Bool)] = [(.memory, false), (.document, false), (.document, true)]

    @Test(arguments: cases)
    func anUndoableBatchInsertIsOneUndoGroupThatUndoRemovesAndRedoBringsBack(kind: BatchStoreKind, reopening: Bool) throws {
        let harness = try UndoableBatchHarness(kind, reopening: reopening)
        let graph = try BatchGraph(in: harness.context)
        let before = try graphPicture(harness.context)
        let request = BatchInsertRequest(entityName: "Employee", objects: [
            employeeRow("Kay", salary: 1, ["department": .object(graph.departments["R&D"]!), "projects": .objects([graph.projects["Engine"]!])]),
            employeeRow("Lin", salary: 2, ["directReports": .objects([graph.employee("Alan")])]),
        ])
        request.registersUndo = true
        let result = try harness.context.executeBatch(request)
        #expect(result.count == 2)
        #expect(harness.undo.undoActionName == "Batch Insert Employee")
        let after = try graphPicture(harness.context)
        #expect(after.count == before.count + 2)
        #expect(after["Employee Alan"]?.contains("manager=Lin") == true)
        if let stack = harness.stack {
            #expect(try stack.store.historyGroups().last?.kind == .user)
            #expect(try stack.store.historyGroups().last?.actionName == "Batch Insert Employee")
        }
        try harness.checkpoint()
        #expect(harness.undo.undoActionName == "Batch Insert Employee")

        try harness.undo.undo()
        #expect(harness.undo.redoActionName == "Batch Insert Employee")
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == before)
        #expect(harness.undo.redoActionName == "Batch Insert Employee")

        try harness.undo.redo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == after)
        #expect(harness.undo.undoActionName == "Batch Insert Employee")
        try harness.undo.undo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == before)
    }

    @Test(arguments: cases)
    func anUndoableBatchUpdateRestoresTheOldValues(kind: BatchStoreKind, reopening: Bool) throws {
        let harness = try UndoableBatchHarness(kind, reopening: reopening)
        let graph = try BatchGraph(in: harness.context)
        let ada = try harness.context.existingObject(with: graph.employee("Ada"))   // registered: the merge refreshes it
        let before = try graphPicture(harness.context)
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary >= 90000"),
                                         propertiesToUpdate: ["salary": 1])
        request.registersUndo = true
        #expect(try harness.context.executeBatch(request).count == 3)
        #expect(try ada.int("salary") == 1)   // merged into the executing context
        #expect(harness.undo.undoActionName == "Batch Update Employee")
        let after = try graphPicture(harness.context)
        try harness.checkpoint()
        try harness.undo.undo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == before)
        try harness.undo.redo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == after)
    }

    @Test(arguments: cases)
    func anUndoableBatchDeleteWithCascadesBringsTheRecordsBackWithTheirRelationships(kind: BatchStoreKind, reopening: Bool) throws {
        let harness = try UndoableBatchHarness(kind, reopening: reopening)
        _ = try BatchGraph(in: harness.context)
        let before = try graphPicture(harness.context)
        // R&D cascades to Ada and Alan; Grace loses her manager, the projects their members.
        let request = BatchDeleteRequest(entityName: "Department", predicate: try FetchPredicate(format: "name == 'R&D'"))
        request.registersUndo = true
        let result = try harness.context.executeBatch(request)
        #expect(result.changes.deleted.count == 3)
        let after = try graphPicture(harness.context)
        #expect(after["Employee Ada"] == nil && after["Employee Grace"]?.contains("manager= ") == true)
        #expect(harness.undo.undoActionName == "Batch Delete Department")
        try harness.checkpoint()
        try harness.undo.undo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == before)
        try harness.undo.redo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == after)
        try harness.undo.undo()
        try harness.checkpoint()
        #expect(try graphPicture(harness.context) == before)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func byDefaultABatchIsNotUndoableAndAnExplicitOpenGroupRefusesAnUndoableOne(kind: BatchStoreKind) throws {
        let harness = try UndoableBatchHarness(kind, reopening: false)
        let graph = try BatchGraph(in: harness.context)
        let ada = try harness.context.existingObject(with: graph.employee("Ada"))
        try ada.setValue(.integer(5), forKey: "salary")
        let plain = try harness.context.executeBatch(BatchInsertRequest(entityName: "Project", objects: [["name": "Plain"]]))
        #expect(plain.count == 1)
        #expect(harness.undo.undoActionName != "Batch Insert Project")
        if let stack = harness.stack { #expect(try stack.store.historyGroups().last?.kind == .batch) }

        // The pending edit stays its own undo step before the batch.
        let request = BatchInsertRequest(entityName: "Project", objects: [["name": "Undoable"]])
        request.registersUndo = true
        _ = try harness.context.executeBatch(request)
        #expect(harness.undo.undoCount == 3)   // the graph's insert, the edit, the batch
        try harness.undo.undo()
        #expect(try ada.int("salary") == 5)
        try harness.undo.undo()
        #expect(try ada.int("salary") == 120_000)

        // A request may name its group and undo action.
        let named = BatchInsertRequest(entityName: "Project", objects: [["name": "Named"]])
        named.registersUndo = true
        named.actionName = "Import Project"
        _ = try harness.context.executeBatch(named)
        #expect(harness.undo.undoActionName == "Import Project")
        if let stack = harness.stack { #expect(try stack.store.historyGroups().last?.actionName == "Import Project") }
        try harness.undo.undo()

        harness.undo.beginUndoGrouping()
        let refused = strataError { _ = try harness.context.executeBatch(request) }
        #expect(refused?.code == .undo)
        try harness.undo.endUndoGrouping()
        try harness.context.save()
        let reader = ManagedObjectContext(coordinator: harness.context.coordinator)
        let names = try reader.fetch(FetchRequest(entityName: "Project")).map { try $0.string("name") ?? "" }
        #expect(names.sorted() == ["Apollo", "Engine", "Plain"])
    }

    @Test func anUndoableInsertWrittenInSeveralChunksIsOneUndoStepAfterReopening() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        let graph = try BatchGraph(in: stack.context)
        var number = 0
        let request = BatchInsertRequest(entityName: "Employee") { row in
            number += 1
            row = employeeRow("Chunked", salary: Int64(number), ["department": .object(graph.departments["Sales"]!)])
            return number > 12_000
        }
        request.registersUndo = true
        #expect(try stack.context.executeBatch(request).count == 12_000)
        let chunks = try stack.store.historyGroups().suffix(2)
        #expect(chunks.map(\.id).count == 2 && Set(chunks.map(\.id)).count == 1 && chunks.allSatisfy { $0.kind == .user })
        try stack.reopen()
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.undoGroups.map(\.actionName).suffix(1) == ["Batch Insert Employee"])
        #expect(stack.undo.undoCount == 2)   // the graph's insert, the batch
        try stack.undo.undo()
        try stack.context.save()
        let reader = stack.newContext()
        #expect(try employeeIDs(named: "Chunked", in: reader).isEmpty)
        let sales = try reader.existingObject(with: graph.departments["Sales"]!)
        #expect(try sales.relatedSet("employees").count == 2)
        try stack.reopen()
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.redoActionName == "Batch Insert Employee")
        try stack.undo.redo()
        try stack.context.save()
        #expect(try stack.newContext().count(for: FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Chunked'"))) == 12_000)
    }
}
