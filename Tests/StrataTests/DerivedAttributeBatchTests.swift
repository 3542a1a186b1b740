import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Batch requests recompute derived attributes in the store, inside the batch's own group
/// (docs/SEMANTICS.md §5a): batch update, insert and delete, in memory and in a document.
@Suite struct DerivedAttributeBatches {
    /// A company stack in memory or over a document file: a department "Research" with Ada
    /// (100) and Alan (300), saved.
    struct Setup {
        let context: ManagedObjectContext
        let store: any PersistentStore
        let research: ManagedObject
        let ada: ManagedObject
        let alan: ManagedObject
        /// Keeps the document (and its temporary directory) alive.
        let holder: AnyObject?

        init(inDocument: Bool) throws {
            if inDocument {
                let stack = try DocumentStack(model: derivedCompanyModel)
                (context, store, holder) = (stack.context, stack.store, stack)
            } else {
                let stack = Stack(model: derivedCompanyModel)
                (context, store, holder) = (stack.context, stack.store, nil)
            }
            let company = Company(context: context)
            research = try company.department("Research")
            ada = try company.employee("Ada", salary: 100, in: research)
            alan = try company.employee("Alan", salary: 300, in: research)
            try context.save()
        }

        func stored(_ object: ManagedObject, _ key: String) throws -> PropertyValue? {
            try storedValue(object.objectID, key, in: store)
        }

        func merge(_ result: BatchResult) throws {
            try ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.remoteChanges, into: [context])
        }
    }

    @Test(arguments: [false, true])
    func aBatchUpdateOfSalariesRecomputesTheDepartmentsAggregatesAndTheEmployeesOwnValues(inDocument: Bool) throws {
        let setup = try Setup(inDocument: inDocument)
        let before = try #require(try setup.stored(setup.ada, "lastModified"))
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary < 200"),
                                         propertiesToUpdate: ["salary": try FetchExpression(format: "salary * 5"), "name": .constant(.string("Ada L"))])
        let result = try setup.context.executeBatch(request)
        #expect(try setup.stored(setup.research, "payroll") == .integer(800))
        #expect(try setup.stored(setup.research, "highestSalary") == .integer(500))
        #expect(try setup.stored(setup.ada, "shoutedName") == .string("ADA L"), "the updated record's own derivation")
        #expect(try setup.stored(setup.ada, "lastModified") != before, "now() is the batch's instant")
        #expect(result.changes.updated.contains(setup.research.objectID), "the recomputed record is in the changes to merge")

        try setup.merge(result)
        #expect(try setup.research.int("payroll") == 800)
        #expect(try setup.research.int("headcount") == 2)
        #expect(try setup.ada.string("shoutedName") == "ADA L")
    }

    @Test(arguments: [false, true])
    func aBatchRenameOfADepartmentRecomputesItsCanonicalNameAndItsEmployeesKeyPath(inDocument: Bool) throws {
        let setup = try Setup(inDocument: inDocument)
        let result = try setup.context.executeBatch(BatchUpdateRequest(entityName: "Department", propertiesToUpdate: ["name": .constant(.string("Crème Brûlée"))]))
        #expect(try setup.stored(setup.research, "searchName") == .string("creme brulee"))
        #expect(try setup.stored(setup.ada, "departmentName") == .string("Crème Brûlée"))
        #expect(try setup.stored(setup.alan, "departmentName") == .string("Crème Brûlée"))
        try setup.merge(result)
        #expect(try setup.alan.string("departmentName") == "Crème Brûlée")
        let found = try setup.context.fetch(FetchRequest(entityName: "Employee", predicate: FetchPredicate(format: "departmentName == 'Crème Brûlée'")))
        #expect(found.count == 2, "fetchable from the store")
    }

    @Test(arguments: [false, true])
    func aBatchInsertComputesTheRowsValuesAndTheAggregatesOfTheDepartmentTheyJoin(inDocument: Bool) throws {
        let setup = try Setup(inDocument: inDocument)
        let rows: [[String: PropertyValue]] = [
            ["name": .string("Grace"), "salary": .integer(1_000), "department": .object(setup.research.objectID)],
            ["name": .string("Edsger"), "salary": .integer(10), "department": .object(setup.research.objectID)],
            ["name": .string("Barbara"), "salary": .integer(7)],
        ]
        let request = BatchInsertRequest(entityName: "Employee", objects: rows)
        request.resultType = .objectIDs
        let result = try setup.context.executeBatch(request)
        #expect(try setup.stored(setup.research, "headcount") == .integer(4))
        #expect(try setup.stored(setup.research, "payroll") == .integer(1_410))
        #expect(try setup.stored(setup.research, "lowestSalary") == .integer(10))
        let ids = try #require(result.objectIDs.count == 3 ? result.objectIDs : nil)
        #expect(try storedValue(ids[0], "departmentName", in: setup.store) == .string("Research"))
        #expect(try storedValue(ids[0], "shoutedName", in: setup.store) == .string("GRACE"))
        #expect(try storedValue(ids[2], "departmentName", in: setup.store) == .null)
        guard case .date = try storedValue(ids[2], "lastModified", in: setup.store) else {
            Issue.record("now() not computed for an inserted row")
            return
        }
        try setup.merge(result)
        #expect(try setup.research.int("headcount") == 4)
    }

    /// A document writes a large insert in chunks of 10,000 rows, each its own segment: each
    /// chunk's department value counts the rows earlier chunks wrote.
    @Test func aBatchInsertOfSeveralChunksCountsEveryChunksRows() throws {
        let setup = try Setup(inDocument: true)
        let total = BatchInsertWriter.documentChunkSize + 5
        let department = setup.research.objectID
        var number = 0
        let request = BatchInsertRequest(entityName: "Employee") { (row: inout [String: PropertyValue]) in
            guard number < total else { return true }
            number += 1
            row["name"] = .string("E\(number)")
            row["salary"] = .integer(1)
            row["department"] = .object(department)
            return false
        }
        _ = try setup.context.executeBatch(request)
        #expect(try setup.stored(setup.research, "headcount") == .integer(Int64(total + 2)))
        #expect(try setup.stored(setup.research, "payroll") == .integer(Int64(total + 400)))
    }

    @Test(arguments: [false, true])
    func aBatchDeleteOfEmployeesRecomputesTheirDepartment(inDocument: Bool) throws {
        let setup = try Setup(inDocument: inDocument)
        let result = try setup.context.executeBatch(BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate(format: "name == 'Alan'")))
        #expect(try setup.stored(setup.research, "headcount") == .integer(1))
        #expect(try setup.stored(setup.research, "payroll") == .integer(100))
        #expect(try setup.stored(setup.research, "averageSalary") == .double(100))
        try setup.merge(result)
        #expect(try setup.research.int("headcount") == 1)
    }

    @Test(arguments: [false, true])
    func undoingAnUndoableBatchRestoresTheDerivedValuesAndRedoRedoesThem(inDocument: Bool) throws {
        let setup = try Setup(inDocument: inDocument)
        let update = BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["salary": .constant(.integer(1))])
        update.registersUndo = true
        _ = try setup.context.executeBatch(update)
        #expect(try setup.research.int("payroll") == 2, "an undoable batch is merged into its context")
        let undo = try #require(setup.context.undoManager)
        try undo.undo()
        #expect(try setup.research.int("payroll") == 400, "the group's derived operations are undone with it")
        try undo.redo()
        #expect(try setup.research.int("payroll") == 2)
        try undo.undo()
        try setup.context.save()
        #expect(try setup.stored(setup.research, "payroll") == .integer(400))
        #expect(try setup.stored(setup.research, "highestSalary") == .integer(300))

        let delete = BatchDeleteRequest(entityName: "Employee", predicate: try FetchPredicate(format: "name == 'Ada'"))
        delete.registersUndo = true
        _ = try setup.context.executeBatch(delete)
        #expect(try setup.stored(setup.research, "headcount") == .integer(1))
        try undo.undo()
        try setup.context.save()
        #expect(try setup.stored(setup.research, "headcount") == .integer(2))
        #expect(try setup.research.int("headcount") == 2)
    }

    @Test func aBatchUpdateOfADerivedAttributeIsRefusedNamingIt() throws {
        let setup = try Setup(inDocument: false)
        let request = BatchUpdateRequest(entityName: "Department", propertiesToUpdate: ["headcount": .constant(.integer(9))])
        let error = try #require(throws: StrataError.self) { try setup.context.executeBatch(request) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("Department.headcount") && error.message.contains("employees.@count"), "\(error.message)")
        #expect(try setup.stored(setup.research, "headcount") == .integer(2))
    }

    @Test func aValueThatCannotBeComputedRefusesTheWholeBatch() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Item", attributes: [
                AttributeDescription("code", .string),
                try AttributeDescription.derived("size", .integer16, "length:(code)"),
            ]),
        ])
        let stack = Stack(model: model)
        let item = try stack.context.insertObject(forEntityName: "Item")
        try item.setValue(.string("a"), forKey: "code")
        try stack.context.save()
        let long = String(repeating: "x", count: 40_000)
        let error = try #require(throws: StrataError.self) {
            try stack.context.executeBatch(BatchUpdateRequest(entityName: "Item", propertiesToUpdate: ["code": .constant(.string(long))]))
        }
        #expect(error.code == .validation)
        #expect(error.problems.first?.key == "size" && error.problems.first?.reason.contains("length:(code)") == true, "\(error.problems)")
        #expect(try storedValue(item.objectID, "code", in: stack.store) == .string("a"), "nothing written")
    }
}
