import Foundation
import Testing
@testable import Strata

/// Uniqueness constraints under the `.error` merge policy: every conflict shape refuses
/// the save with a `.constraintConflict` naming the constraint, the objects and the
/// record holding the key, and nothing is written.
@Suite struct UniquenessErrorTests {
    @Test(arguments: BatchStoreKind.allCases)
    func twoNewObjectsWithOneKeyInOneSaveAreRefused(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let context = fixture.context()
        let first = try insert("Person", ["email": "ada@example.com", "name": "Ada"], in: context)
        let second = try insert("Person", ["email": "ada@example.com", "name": "Augusta"], in: context)
        let error = strataError { try context.save() }
        #expect(error?.code == .constraintConflict, "\(String(describing: error))")
        let conflict = try #require(error?.constraintConflicts.first)
        #expect(error?.constraintConflicts.count == 1)
        #expect(conflict.entityName == "Person")
        #expect(conflict.constraint == ["email"])
        #expect(conflict.values == ["email": "ada@example.com"])
        #expect(conflict.conflictingObjects == [first.objectID, second.objectID])
        #expect(conflict.conflictingSnapshots.map { $0["name"] } == ["Ada", "Augusta"])
        #expect(conflict.databaseObject == nil)
        #expect(error?.description.contains("Person(email)") == true)
        #expect(error?.description.contains("\"ada@example.com\"") == true)
        #expect(try fixture.records("Person").isEmpty)
        #expect(first.hasChanges && second.hasChanges)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aNewObjectWithTheKeyOfAStoredRecordIsRefusedNamingTheRecord(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let stored = try fixture.saved("Person", ["email": "ada@example.com", "name": "Ada"])
        let context = fixture.context()
        let object = try insert("Person", ["email": "ada@example.com", "name": "Augusta"], in: context)
        let error = strataError { try context.save() }
        #expect(error?.code == .constraintConflict)
        let conflict = try #require(error?.constraintConflicts.first)
        #expect(conflict.conflictingObjects == [object.objectID])
        #expect(conflict.databaseObject == stored)
        #expect(conflict.databaseSnapshot?["name"] == "Ada")
        #expect(error?.description.contains("is taken by \(stored)") == true, "\(String(describing: error))")
        #expect(try fixture.records("Person").count == 1)
        // Fixing the key lets the same context save.
        try object.setValue("augusta@example.com", forKey: "email")
        try context.save()
        #expect(try fixture.records("Person").count == 2)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aKeyChangedOntoAStoredRecordsKeyIsRefused(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let ada = try fixture.saved("Person", ["email": "ada@example.com"])
        let grace = try fixture.saved("Person", ["email": "grace@example.com"])
        let context = fixture.context()
        let object = try context.existingObject(with: grace)
        try object.setValue("ada@example.com", forKey: "email")
        let error = strataError { try context.save() }
        #expect(error?.code == .constraintConflict)
        #expect(error?.constraintConflicts.first?.conflictingObjects == [grace])
        #expect(error?.constraintConflicts.first?.databaseObject == ada)
        #expect(try fixture.records("Person")[grace]?["email"] == "grace@example.com")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func keysSwappedOrFreedInTheSameSaveDoNotConflict(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let ada = try fixture.saved("Person", ["email": "ada@example.com"])
        let grace = try fixture.saved("Person", ["email": "grace@example.com"])
        let context = fixture.context()
        try context.existingObject(with: ada).setValue("grace@example.com", forKey: "email")
        try context.existingObject(with: grace).setValue("ada@example.com", forKey: "email")
        try context.save()
        #expect(try fixture.records("Person")[ada]?["email"] == "grace@example.com")
        // A deleted holder frees its key for a new object of the same save.
        context.delete(try context.existingObject(with: ada))
        try insert("Person", ["email": "grace@example.com", "name": "New"], in: context)
        try context.save()
        let records = try fixture.records("Person")
        #expect(records.count == 2)
        #expect(records.values.first { $0["email"] == "grace@example.com" }?["name"] == "New")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func nilsNeverConflict(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        try fixture.saved("Person", ["name": "Ada"])
        let context = fixture.context()
        try insert("Person", ["name": "Grace"], in: context)
        try insert("Person", ["name": "Alan"], in: context)
        try insert("Slot", ["shelf": "A"], in: context)
        try insert("Slot", ["shelf": "A"], in: context)
        try context.save()
        #expect(try fixture.records("Person").count == 3)
        #expect(try fixture.records("Slot").count == 2)
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aTwoAttributeConstraintConflictsOnlyWhenBothValuesAreEqual(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let stored = try fixture.saved("Slot", ["shelf": "A", "position": 1])
        let context = fixture.context()
        try insert("Slot", ["shelf": "A", "position": 2], in: context)
        try insert("Slot", ["shelf": "B", "position": 1], in: context)
        try context.save()
        let clash = try insert("Slot", ["shelf": "A", "position": 1], in: context)
        let error = strataError { try context.save() }
        let conflict = try #require(error?.constraintConflicts.first)
        #expect(conflict.constraint == ["shelf", "position"])
        #expect(conflict.values == ["shelf": "A", "position": 1])
        #expect(conflict.conflictingObjects == [clash.objectID])
        #expect(conflict.databaseObject == stored)
        #expect(error?.description.contains("Slot(shelf, position): shelf = \"A\", position = ") == true, "\(String(describing: error))")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func subEntitiesShareTheirParentsConstraintButNotEachOthers(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let employee = try fixture.saved("Employee", ["email": "ada@example.com", "badge": 7])
        let context = fixture.context()
        // A Customer with an Employee's email: Person's constraint covers the whole tree.
        let customer = try insert("Customer", ["email": "ada@example.com"], in: context)
        let error = strataError { try context.save() }
        #expect(error?.constraintConflicts.first?.entityName == "Person")
        #expect(error?.constraintConflicts.first?.databaseObject == employee)
        #expect(error?.constraintConflicts.first?.conflictingObjects == [customer.objectID])
        // Employee's own constraint binds Employees only, and a plain Person with the
        // email is caught by the parent's.
        try customer.setValue("grace@example.com", forKey: "email")
        try insert("Employee", ["email": "alan@example.com", "badge": 7], in: context)
        let second = strataError { try context.save() }
        #expect(second?.constraintConflicts.map(\.constraint) == [["badge"]])
        #expect(second?.constraintConflicts.first?.entityName == "Employee")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aSaveFromASecondContextIsCheckedAgainstTheFirstContextsSave(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let first = fixture.context(), second = fixture.context()
        try insert("Team", ["name": "Red"], in: first)
        let late = try insert("Team", ["name": "Red"], in: second)
        try first.save()
        let error = strataError { try second.save() }
        #expect(error?.code == .constraintConflict)
        #expect(error?.constraintConflicts.first?.conflictingObjects == [late.objectID])
        #expect(try fixture.records("Team").count == 1)
    }

    @Test func aSaveThroughASecondConnectionIsCheckedAgainstTheFirstConnectionsSave() throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file(), model: uniquenessModel) { _ in }
        defer { try? one.store.close(); try? other.store.close() }
        try insert("Person", ["email": "ada@example.com", "name": "One"], in: one.context)
        try insert("Person", ["email": "ada@example.com", "name": "Other"], in: other.context)
        try one.context.save()
        let error = strataError { try other.context.save() }
        #expect(error?.code == .constraintConflict, "\(String(describing: error))")
        #expect(error?.constraintConflicts.first?.databaseSnapshot?["name"] == "One")
        let stored = try one.store.objectIDs(for: uniquenessModel.entity(named: "Person"), includingSubentities: true)
        #expect(stored.count == 1)
    }
}
