import Foundation
import Testing
@testable import Strata

/// `Record`: an optional string, integer and data with no constraints.
let nullModel: ManagedObjectModel = {
    let record = EntityDescription("Record", attributes: [
        AttributeDescription("text", .string),
        AttributeDescription("amount", .integer64),
        AttributeDescription("blob", .binaryData),
    ])
    return try! ManagedObjectModel(entities: [record])
}()

/// docs/SEMANTICS.md §1/§3: NULL is not 0 and not "" — in storage, in changes, after a reload.
@Suite struct NullValues {
    /// One record with NULLs and one with 0, "" and empty data, both saved.
    func savedPair(_ stack: Stack) throws -> (none: ManagedObject, zero: ManagedObject) {
        let none = try stack.context.insertObject(forEntityName: "Record")
        let zero = try stack.context.insertObject(forEntityName: "Record")
        try zero.setValue(.integer(0), forKey: "amount")
        try zero.setValue(.string(""), forKey: "text")
        try zero.setValue(.data(Data()), forKey: "blob")
        try stack.context.save()
        return (none, zero)
    }

    @Test func nullZeroAndEmptyAreDistinctInStorage() throws {
        let stack = Stack(model: nullModel)
        let (none, zero) = try savedPair(stack)
        #expect(try none.value(forKey: "amount") == .null)
        #expect(try zero.value(forKey: "amount") == .integer(0))
        #expect(try none.value(forKey: "text") == .null)
        #expect(try zero.value(forKey: "text") == .string(""))
        #expect(try none.value(forKey: "blob") == .null)
        #expect(try zero.value(forKey: "blob") == .data(Data()))
        #expect(PropertyValue.null != .integer(0))
        #expect(PropertyValue.null != .string(""))
        #expect(PropertyValue.null != .data(Data()))
    }

    @Test func changingNullToZeroOrEmptyIsAChange() throws {
        let stack = Stack(model: nullModel)
        let (none, _) = try savedPair(stack)
        try none.setValue(.integer(0), forKey: "amount")
        try none.setValue(.string(""), forKey: "text")
        #expect(none.changedValues() == ["amount": .integer(0), "text": .string("")])
        #expect(none.isUpdated)
        stack.context.processPendingChanges()
        #expect(stack.context.log.unsaved.count == 1)

        try none.setValue(.null, forKey: "amount")
        try none.setValue(.null, forKey: "text")
        #expect(none.changedValues().isEmpty, "back to null is back to the committed value")
        #expect(!none.isUpdated)
    }

    @Test func changingZeroOrEmptyToNullIsAChange() throws {
        let stack = Stack(model: nullModel)
        let (_, zero) = try savedPair(stack)
        try zero.setValue(.null, forKey: "amount")
        try zero.setValue(.null, forKey: "text")
        let changed = zero.changedValues()
        #expect(changed.count == 2)
        #expect(changed["amount"] == .some(.null))
        #expect(changed["text"] == .some(.null))
        #expect(try zero.committedValues(forKeys: ["amount", "text"]) == ["amount": .integer(0), "text": .string("")])
    }

    @Test func nullZeroAndEmptySurviveASaveAndAReloadInAnotherContext() throws {
        let stack = Stack(model: nullModel)
        let (none, zero) = try savedPair(stack)
        let other = stack.newContext()
        let loadedNone = try other.existingObject(with: none.objectID)
        let loadedZero = try other.existingObject(with: zero.objectID)
        for key in ["amount", "text", "blob"] { #expect(try loadedNone.value(forKey: key) == .null, "\(key)") }
        #expect(try loadedZero.value(forKey: "amount") == .integer(0))
        #expect(try loadedZero.value(forKey: "text") == .string(""))
        #expect(try loadedZero.value(forKey: "blob") == .data(Data()))

        // A change between them saves as a change.
        try loadedZero.setValue(.null, forKey: "amount")
        try loadedNone.setValue(.string(""), forKey: "text")
        try other.save()
        let third = stack.newContext()
        #expect(try third.existingObject(with: zero.objectID).value(forKey: "amount") == .null)
        #expect(try third.existingObject(with: none.objectID).value(forKey: "text") == .string(""))
    }

    @Test func aPatternConstraintRejectsTheEmptyStringButNotNull() throws {
        let stack = Stack()
        // Employee.email is optional with a pattern: NULL is fine, "" must match.
        let employee = try stack.employee()
        try stack.context.save()
        try employee.setValue(.string(""), forKey: "email")
        #expect(strataError { try stack.context.save() }?.problems.map(\.key) == ["email"])
    }

    @Test func aNonOptionalStringAcceptsEmptyButRejectsNull() throws {
        let stack = Stack()
        // Project.name is non-optional with no length constraint.
        let empty = try stack.project("")
        try stack.context.save()
        #expect(try empty.string("name") == "")

        let missing = try stack.context.insertObject(forEntityName: "Project")
        #expect(try missing.value(forKey: "name") == .null)
        let error = strataError { try stack.context.save() }
        #expect(error?.code == .validation)
        #expect(error?.problems.map(\.key) == ["name"])
        #expect(error?.problems.first?.reason.contains("required") == true)

        try missing.setValue(.string(""), forKey: "name")
        try stack.context.save()
        let other = stack.newContext()
        #expect(try other.existingObject(with: missing.objectID).string("name") == "")
    }

    @Test func onDemandValidationTellsNullFromEmpty() throws {
        let stack = Stack()
        let project = try stack.project()
        #expect(throws: Never.self) { try project.validateValue(.string(""), forKey: "name") }
        #expect(strataError { try project.validateValue(.null, forKey: "name") }?.code == .validation)
    }
}
