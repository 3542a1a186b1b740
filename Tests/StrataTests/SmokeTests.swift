import Foundation
import Testing
@testable import Strata

@Suite struct Smoke {
    @Test func anInsertSavesUndoesAndRedoes() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee(salary: 100)
        try employee.setObject(department, forKey: "department")
        #expect(try department.relatedSet("employees") == [employee])
        try stack.context.save()
        #expect(!employee.objectID.isTemporaryID)
        try employee.setValue(.integer(200), forKey: "salary")
        try stack.undo.undo()
        #expect(try employee.int("salary") == 100)
        try stack.undo.redo()
        #expect(try employee.int("salary") == 200)
        try stack.undo.undo()
        try stack.undo.undo()
        #expect(employee.isDeleted || employee.isInvalid)
        #expect(stack.context.hasChanges)
    }
}
