import Foundation
import Testing
@testable import Strata

/// Batch inserts into entities with uniqueness constraints (issue 32, item 2): under the
/// executing context's `.error` policy a row whose key a record or an earlier row holds
/// refuses the whole request; under the other policies it merges into the holder, which
/// keeps its ID, as a save merges a new object (docs/SEMANTICS.md, "Batch inserts and
/// uniqueness constraints").
@Suite struct BatchInsertUniquenessTests {
    struct Case: CustomStringConvertible, Sendable {
        let kind: BatchStoreKind
        let policy: MergePolicy
        var description: String { "\(kind) \(policy)" }
    }

    static let cases = BatchStoreKind.allCases.flatMap { kind in resolvingPolicies.map { Case(kind: kind, policy: $0) } }

    private func people(_ fixture: UniquenessFixture) throws -> [String: [String: PropertyValue]] {
        var byEmail: [String: [String: PropertyValue]] = [:]
        for record in try fixture.records("Person").values {
            if case .string(let email)? = record["email"] { byEmail[email] = record }
        }
        return byEmail
    }

    @Test(arguments: BatchStoreKind.allCases)
    func underTheErrorPolicyAKeyAStoredRecordHoldsRefusesTheRequestAndWritesNothing(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let ada = try fixture.saved("Person", ["email": "ada@x", "name": "Ada"])
        let request = BatchInsertRequest(entityName: "Person", objects: [["email": "new@x"], ["email": "ada@x", "name": "Again"]])
        let error = try #require(throws: StrataError.self) { try fixture.context().executeBatch(request) }
        #expect(error.code == .constraintConflict)
        #expect(error.message.contains("uniqueness constraint Person(email)"), "\(error.message)")
        #expect(error.message.contains("row 2's email = \"ada@x\" is taken by \(ada.shortReference)"), "\(error.message)")
        #expect(error.context.rows == [2])
        let stored = try people(fixture)
        #expect(stored.keys.sorted() == ["ada@x"])
        #expect(stored["ada@x"]?["name"] == "Ada")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func underTheErrorPolicyDuplicatesWithinTheBatchRefuseItNamingBothRows(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let request = BatchInsertRequest(entityName: "Person", objects: [["email": "a@x"], ["email": "b@x"], ["email": "a@x"]])
        let error = try #require(throws: StrataError.self) { try fixture.context().executeBatch(request) }
        #expect(error.code == .constraintConflict)
        #expect(error.message.contains("row 3 repeats row 1's email = \"a@x\""), "\(error.message)")
        #expect(try fixture.records("Person").isEmpty)
        // NULL keys never conflict, as in a save.
        let nulls = BatchInsertRequest(entityName: "Person", objects: [["name": "one"], ["name": "two"]])
        #expect(try fixture.context().executeBatch(nulls).count == 2)
    }

    @Test func theErrorNamesAtMostFiveRowsAndCutsLongValues() throws {
        let fixture = try UniquenessFixture(.memory)
        let long = String(repeating: "z", count: 500)
        let rows: [[String: PropertyValue]] = (0..<40).map { _ in ["email": .string(long)] }
        let error = try #require(throws: StrataError.self) {
            try fixture.context().executeBatch(BatchInsertRequest(entityName: "Person", objects: rows))
        }
        #expect(error.message.contains("row 6 repeats row 1"))
        #expect(!error.message.contains("row 7 repeats"))
        #expect(error.message.contains("and at least 34 more rows"), "\(error.message)")
        #expect(error.description.count < 700, "\(error.description.count) characters")
        #expect(!error.message.contains(String(repeating: "z", count: 40)))
    }

    /// The stored Ada (name Ada, age 30) and a batch giving her email a new name (and no
    /// age), plus a new person.
    @Test(arguments: cases)
    func aRowWithAStoredKeyMergesIntoTheStoredRecordByThePolicy(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let ada = try fixture.saved("Person", ["email": "ada@x", "name": "Ada", "age": 30])
        let context = fixture.context(test.policy)
        let request = BatchInsertRequest(entityName: "Person", objects: [
            ["email": "ada@x", "name": "Augusta"],
            ["email": "grace@x", "name": "Grace"],
        ])
        request.resultType = .objectIDs
        let result = try context.executeBatch(request)
        #expect(result.count == 1)
        #expect(!result.objectIDs.contains(ada))
        let records = try fixture.records("Person")
        #expect(records.count == 2)
        let record = try #require(records[ada], "the stored record keeps its ID")
        switch test.policy {
        case .mergeByPropertyObjectTrump:
            #expect(record["name"] == "Augusta" && record["age"] == 30)
            #expect(result.changes.updated.contains(ada))
        case .overwrite:
            #expect(record["name"] == "Augusta" && record["age"] == .null)
            #expect(result.changes.updated.contains(ada))
        case .mergeByPropertyStoreTrump, .rollback:
            #expect(record["name"] == "Ada" && record["age"] == 30)
            #expect(!result.changes.updated.contains(ada))
        case .error:
            Issue.record("not a resolving policy")
        }
    }

    @Test(arguments: cases)
    func duplicatesWithinTheBatchBecomeOneRecord(_ test: Case) throws {
        let fixture = try UniquenessFixture(test.kind)
        let request = BatchInsertRequest(entityName: "Person", objects: [
            ["email": "a@x", "name": "First"],
            ["email": "a@x", "name": "Second", "age": 40],
            ["email": "a@x", "name": "Third"],
        ])
        #expect(try fixture.context(test.policy).executeBatch(request).count == 1)
        let records = try people(fixture)
        #expect(records.count == 1)
        let record = try #require(records["a@x"])
        switch test.policy {
        case .mergeByPropertyObjectTrump:
            // The later row wins each value it gives.
            #expect(record["name"] == "Third" && record["age"] == 40)
        case .overwrite:
            #expect(record["name"] == "Third" && record["age"] == .null)
        case .mergeByPropertyStoreTrump:
            // The first row is written; later ones only fill its nils.
            #expect(record["name"] == "First" && record["age"] == 40)
        case .rollback:
            #expect(record["name"] == "First" && record["age"] == .null)
        case .error:
            Issue.record("not a resolving policy")
        }
    }

    /// A document writes a request in chunks of 10,000 rows, and earlier chunks are not yet
    /// in the store the next one looks keys up in: the request remembers the keys it wrote.
    @Test func aDuplicateOfARowInAnEarlierChunkIsFound() throws {
        let fixture = try UniquenessFixture(.document)
        let stored = try fixture.saved("Person", ["email": "stored@x", "name": "Stored"])
        let size = BatchInsertWriter.documentChunkSize
        func rows(_ late: String) -> [[String: PropertyValue]] {
            var rows: [[String: PropertyValue]] = (0..<size).map { ["email": .string("p\($0)@x"), "name": "early"] }
            rows.append(["email": "p3@x", "name": .string(late)])
            rows.append(["email": "stored@x", "name": .string(late)])
            return rows
        }
        let refused = try #require(throws: StrataError.self) {
            try fixture.context().executeBatch(BatchInsertRequest(entityName: "Person", objects: rows("late")))
        }
        #expect(refused.message.contains("row \(size + 1)'s email = \"p3@x\" is taken by Person/p"), "\(refused.message)")
        #expect(refused.message.contains("row \(size + 2)'s email = \"stored@x\" is taken by \(stored.shortReference)"), "\(refused.message)")
        #expect(try fixture.records("Person").count == 1)

        let result = try fixture.context(.mergeByPropertyObjectTrump).executeBatch(BatchInsertRequest(entityName: "Person", objects: rows("late")))
        #expect(result.count == size)
        let records = try people(fixture)
        #expect(records.count == size + 1)
        #expect(records["p3@x"]?["name"] == "late")
        #expect(records["p4@x"]?["name"] == "early")
        #expect(records["stored@x"]?["name"] == "late")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aRowThatWouldMergeButSetsARelationshipIsRefused(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        try fixture.saved("Person", ["email": "ada@x"])
        let team = try fixture.saved("Team", ["name": "One"])
        let request = BatchInsertRequest(entityName: "Person", objects: [["email": "ada@x", "team": .object(team)]])
        let error = try #require(throws: StrataError.self) { try fixture.context(.overwrite).executeBatch(request) }
        #expect(error.code == .constraintConflict)
        #expect(error.message.contains("Row 1") && error.message.contains("'team'"), "\(error.message)")
        #expect(try fixture.records("Team").values.first?["members"]?.objectIDs.isEmpty == true)
    }

    /// A key over two attributes, and a row of a sub-entity merging into a record of its
    /// parent's tree.
    @Test(arguments: BatchStoreKind.allCases)
    func compoundKeysAndSubEntitiesMergeLikeSaves(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let slot = try fixture.saved("Slot", ["shelf": "A", "position": 1, "label": "old"])
        let customer = try fixture.saved("Customer", ["email": "c@x", "name": "Customer"])
        let context = fixture.context(.mergeByPropertyObjectTrump)
        _ = try context.executeBatch(BatchInsertRequest(entityName: "Slot", objects: [
            ["shelf": "A", "position": 1, "label": "new"],
            ["shelf": "A", "position": 2, "label": "other"],
        ]))
        let slots = try fixture.records("Slot")
        #expect(slots.count == 2)
        #expect(slots[slot]?["label"] == "new")
        _ = try context.executeBatch(BatchInsertRequest(entityName: "Employee", objects: [["email": "c@x", "name": "Renamed", "badge": 7]]))
        let people = try fixture.records("Person")
        #expect(people.count == 1)
        #expect(people[customer]?["name"] == "Renamed")
    }

    /// An undoable upsert is undone like any other change: the stored record gets its
    /// values back and the inserted rows go.
    @Test(arguments: BatchStoreKind.allCases)
    func undoingAnUpsertRestoresTheStoredRecord(kind: BatchStoreKind) throws {
        let fixture = try UniquenessFixture(kind)
        let ada = try fixture.saved("Person", ["email": "ada@x", "name": "Ada"])
        let context = fixture.context(.mergeByPropertyObjectTrump)
        let request = BatchInsertRequest(entityName: "Person", objects: [["email": "ada@x", "name": "Augusta"], ["email": "b@x"]])
        request.registersUndo = true
        _ = try context.executeBatch(request)
        #expect(try fixture.records("Person")[ada]?["name"] == "Augusta")
        _ = try context.undoManager?.undo()
        try context.save()
        let records = try fixture.records("Person")
        #expect(records.count == 1)
        #expect(records[ada]?["name"] == "Ada")
    }
}
