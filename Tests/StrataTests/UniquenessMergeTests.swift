import Foundation
import Testing
@testable import Strata

/// Uniqueness constraints under the resolving merge policies: the objects sharing a key
/// merge into one record (the stored one keeps its ID — an upsert), property by property
/// as the policy says, and the losing object's relationships move to the record.
@Suite struct UniquenessMergeTests {
    struct Case: CustomStringConvertible, Sendable {
        let kind: BatchStoreKind
        let policy: MergePolicy
        var description: String { "\(kind) \(policy)" }
    }

    static let cases = BatchStoreKind.allCases.flatMap { kind in resolvingPolicies.map { Case(kind: kind, policy: $0) } }

    /// The stored Ada (age 30, team One) and a new object with her email (name New, team Two, a note).
    private func upsert(_ fixture: UniquenessFixture, policy: MergePolicy)
        throws -> (stored: ManagedObjectID, context: ManagedObjectContext, new: ManagedObject, note: ManagedObject) {
        let setUp = fixture.context()
        let ada = try insert("Person", ["email": "ada@example.com", "name": "Old", "age": 30], in: setUp)
        try ada.setValue(.object(try insert("Team", ["name": "One"], in: setUp).objectID), forKey: "team")
        try setUp.save()
        let context = fixture.context(policy)
        let new = try insert("Person", ["email": "ada@example.com", "name": "New"], in: context)
        try new.setValue(.object(try insert("Team", ["name": "Two"], in: context).objectID), forKey: "team")
        let note = try insert("Note", ["text": "hello"], in: context)
        try note.setValue(.object(new.objectID), forKey: "author")
        try context.save()
        return (ada.objectID, context, new, note)
    }

    @Test(arguments: cases)
    func aNewObjectWithAStoredKeyMergesIntoTheStoredRecord(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let (stored, context, new, note) = try upsert(fixture, policy: test.policy)
        let people = try fixture.records("Person")
        #expect(people.count == 1)
        let record = try #require(people[stored])
        let teams = try fixture.records("Team")
        let teamName = teams[try #require(record["team"]?.objectIDs.first)]?["name"]
        switch test.policy {
        case .mergeByPropertyObjectTrump:
            #expect(record["name"] == "New" && record["age"] == 30 && teamName == "Two")
        case .mergeByPropertyStoreTrump, .rollback:
            #expect(record["name"] == "Old" && record["age"] == 30 && teamName == "One")
        case .overwrite:
            #expect(record["name"] == "New" && record["age"] == .null && teamName == "Two")
        case .error:
            Issue.record("not a resolving policy")
        }
        // The new object's to-many moved to the record under every policy.
        #expect(record["notes"]?.objectIDs == [note.objectID])
        #expect(try fixture.records("Note")[note.objectID]?["author"] == .object(stored))
        // In the context: the new object is gone; the record's object has the merged values.
        #expect(new.isDeleted || new.context == nil)
        let object = try context.existingObject(with: stored)
        #expect(try object.value(forKey: "name") == record["name"])
        #expect(!context.hasChanges)
    }

    @Test(arguments: cases)
    func twoNewObjectsWithOneKeyBecomeOneRecord(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let context = fixture.context(test.policy)
        let first = try insert("Person", ["email": "ada@example.com", "name": "First", "age": 1], in: context)
        let second = try insert("Person", ["email": "ada@example.com", "name": "Second"], in: context)
        try context.save()
        let people = try fixture.records("Person")
        #expect(people.count == 1)
        // The first inserted object survives; the second merges into it.
        let record = try #require(people[first.objectID])
        #expect(second.isDeleted || second.context == nil)
        switch test.policy {
        case .mergeByPropertyObjectTrump: #expect(record["name"] == "Second" && record["age"] == 1)
        case .overwrite: #expect(record["name"] == "Second" && record["age"] == .null)
        default: #expect(record["name"] == "First" && record["age"] == 1)
        }
    }

    @Test(arguments: cases)
    func aKeyChangedOntoAStoredKey(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let ada = try fixture.saved("Person", ["email": "ada@example.com", "name": "Ada"])
        let grace = try fixture.saved("Person", ["email": "grace@example.com", "name": "Grace", "age": 40])
        let context = fixture.context(test.policy)
        try context.existingObject(with: grace).setValue("ada@example.com", forKey: "email")
        try context.save()
        let people = try fixture.records("Person")
        if test.policy == .rollback {
            // The store wins: the move onto a taken key is undone, both records stay.
            #expect(people.count == 2)
            #expect(people[grace]?["email"] == "grace@example.com")
        } else {
            // The moved record merges into the key's holder and is deleted.
            #expect(people.count == 1)
            let record = try #require(people[ada])
            // Object trump takes only what the moved object changed (its email); store
            // trump fills the holder's nils; overwrite takes every value.
            switch test.policy {
            case .mergeByPropertyObjectTrump: #expect(record["name"] == "Ada" && record["age"] == .null)
            case .mergeByPropertyStoreTrump: #expect(record["name"] == "Ada" && record["age"] == 40)
            default: #expect(record["name"] == "Grace" && record["age"] == 40)
            }
        }
    }

    @Test(arguments: cases)
    func aTwoAttributeConstraintMergesOnlyEqualPairs(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let stored = try fixture.saved("Slot", ["shelf": "A", "position": 1, "label": "old"])
        let context = fixture.context(test.policy)
        try insert("Slot", ["shelf": "A", "position": 1, "label": "new"], in: context)
        try insert("Slot", ["shelf": "A", "position": 2, "label": "other"], in: context)
        try context.save()
        let slots = try fixture.records("Slot")
        #expect(slots.count == 2)
        let label = slots[stored]?["label"]
        #expect(label == ([.mergeByPropertyObjectTrump, .overwrite].contains(test.policy) ? "new" : "old"))
    }

    @Test(arguments: cases)
    func aSubEntityObjectMergesIntoASiblingsRecordKeepingTheSharedProperties(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let employee = try fixture.saved("Employee", ["email": "ada@example.com", "badge": 7])
        let context = fixture.context(test.policy)
        try insert("Customer", ["email": "ada@example.com", "name": "Customer Ada", "account": "C-1"], in: context)
        try context.save()
        let people = try fixture.records("Person")
        #expect(people.count == 1)
        let record = try #require(people[employee])
        #expect(employee.entity.name == "Employee")
        #expect(record["badge"] == 7)
        #expect(record["account"] == nil)   // an Employee has no account
        #expect(record["name"] == (test.policy == .rollback ? .null : "Customer Ada"))
    }

    @Test(arguments: cases)
    func aSecondContextsNewObjectMergesIntoTheFirstContextsSavedRecord(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let first = fixture.context(), second = fixture.context(test.policy)
        let red = try insert("Team", ["name": "Red"], in: first)
        try insert("Team", ["name": "Red"], in: second)
        try first.save()
        try second.save()
        #expect(try fixture.records("Team").keys.sorted() == [red.objectID])
    }

    @Test(arguments: resolvingPolicies)
    func aSecondConnectionsNewObjectMergesIntoTheFirstConnectionsRecord(_ policy: MergePolicy) throws {
        let directory = try TemporaryDirectory()
        let (_, one, other) = try DocumentStack.twoConnections(directory.file(), model: uniquenessModel) { _ in }
        defer { try? one.store.close(); try? other.store.close() }
        other.context.mergePolicy = policy
        let ada = try insert("Person", ["email": "ada@example.com", "name": "One"], in: one.context)
        try insert("Person", ["email": "ada@example.com", "name": "Other", "age": 5], in: other.context)
        try one.context.save()
        try other.context.save()
        let person = try uniquenessModel.entity(named: "Person")
        let stored = try other.store.objectIDs(for: person, includingSubentities: true)
        #expect(stored == [ada.objectID])
        let values = try #require(try other.store.values(for: ada.objectID))
        #expect(values[try #require(person.slot(forKey: "age"))] == (policy == .rollback ? .null : 5))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func undoingTheSaveOfAnUpsertRestoresTheStateBeforeTheSave(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let stored = try fixture.saved("Person", ["email": "ada@example.com", "name": "Old"])
        let context = fixture.context(.mergeByPropertyObjectTrump)
        let undo = try #require(context.undoManager)
        try insert("Person", ["email": "ada@example.com", "name": "New"], in: context)
        context.processPendingChanges()
        try context.save()
        #expect(try fixture.records("Person")[stored]?["name"] == "New")
        while undo.canUndo { _ = try undo.undo() }
        try context.save()
        let people = try fixture.records("Person")
        #expect(people.count == 1)
        #expect(people[stored]?["name"] == "Old")
    }
}
