import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md, "Persistent history": tokens, filters, old and new values, deletion.
@Suite struct PersistentHistory {
    private func insert(_ context: ManagedObjectContext, _ entity: String, _ values: [String: PropertyValue]) throws -> ManagedObject {
        let object = try context.insertObject(forEntityName: entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }

    @Test func tokensCompareInSaveOrderAndRoundTripThroughCodableAndText() throws {
        let early = PersistentHistoryToken(sequence: 3)
        let late = PersistentHistoryToken(sequence: 12)
        #expect(early < late && !(late < early) && early != late)
        let data = try JSONEncoder().encode([early, late])
        #expect(String(decoding: data, as: UTF8.self) == "[3,12]")
        #expect(try JSONDecoder().decode([PersistentHistoryToken].self, from: data) == [early, late])
        #expect(PersistentHistoryToken(late.description) == late)
        #expect(PersistentHistoryToken("12x") == nil && PersistentHistoryToken("-1") == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PersistentHistoryToken.self, from: Data("\"3\"".utf8)) }
    }

    @Test func eachSaveIsATransactionWithAuthorContextNameActionAndOldAndNewValues() throws {
        let stack = try DocumentStack()
        let context = stack.context
        context.transactionAuthor = "Importer"
        context.name = "import queue"
        let start = try stack.store.currentHistoryToken
        #expect(start.sequence == 0)
        let research = try insert(context, "Department", ["name": .string("Research")])
        let ada = try insert(context, "Employee", ["firstName": .string("Ada"), "lastName": .string("Lovelace"), "salary": .integer(100)])
        try ada.setObject(research, forKey: "department")
        stack.undo.setActionName("Hire Ada")
        try context.save()
        let afterInsert = try stack.store.currentHistoryToken

        context.transactionAuthor = "Alice"
        context.name = nil
        try ada.setValue(.integer(150), forKey: "salary")
        try ada.setValue(.integer(200), forKey: "salary")
        try ada.setValue(.string("Augusta"), forKey: "firstName")
        try context.save()
        context.delete(research)
        try context.save()

        let all = try stack.store.history()
        #expect(all.map(\.token) == [PersistentHistoryToken(sequence: 1), PersistentHistoryToken(sequence: 2), PersistentHistoryToken(sequence: 3)])
        #expect(all.map(\.author) == ["Importer", "Alice", "Alice"])
        #expect(all.map(\.contextName) == ["import queue", nil, nil])
        #expect(all[0].actionName == "Hire Ada")
        #expect(all[0].token == afterInsert)

        let inserted = try #require(all[0].changes.first { $0.objectID == ada.objectID })
        #expect(inserted.kind == .insert)
        let salaryAtInsert = try #require(inserted.properties.first { $0.key == "salary" })
        #expect(salaryAtInsert.old == .null && salaryAtInsert.new == .integer(100))
        #expect(!inserted.changedKeys.contains("fullName"), "a transient property is not history")

        let updated = try #require(all[1].changes.first)
        #expect(all[1].changes.count == 1 && updated.kind == .update && updated.objectID == ada.objectID)
        #expect(updated.changedKeys == ["firstName", "salary"])
        let salary = try #require(updated.properties.first { $0.key == "salary" })
        #expect(salary.old == .integer(100) && salary.new == .integer(200), "first old value, last new value of the save")

        let deleted = try #require(all[2].changes.first { $0.objectID == research.objectID })
        #expect(deleted.kind == .delete)
        #expect(deleted.properties.first { $0.key == "name" }?.old == .string("Research"))
        #expect(deleted.properties.first { $0.key == "name" }?.new == .null)
    }

    @Test func requestsFilterByTokenDateAuthorContextNameAndEntity() throws {
        let stack = try DocumentStack()
        let context = stack.context
        context.transactionAuthor = "Importer"
        context.name = "background"
        _ = try insert(context, "Department", ["name": .string("Research")])
        try context.save()
        let mark = try stack.store.currentHistoryToken
        let firstTime = try #require(try stack.store.history().last?.timestamp)
        context.transactionAuthor = "Alice"
        context.name = "main"
        let ada = try insert(context, "Employee", ["firstName": .string("Ada"), "lastName": .string("Lovelace")])
        try context.save()
        context.transactionAuthor = nil
        try ada.setValue(.integer(7), forKey: "salary")
        try context.save()

        #expect(try stack.store.history(PersistentHistoryRequest(after: mark)).map(\.token.sequence) == [2, 3])
        #expect(try stack.store.history(PersistentHistoryRequest(after: stack.store.currentHistoryToken)).isEmpty)
        #expect(try stack.store.history(PersistentHistoryRequest(authors: ["Alice"])).map(\.token.sequence) == [2])
        #expect(try stack.store.history(PersistentHistoryRequest(authors: ["Alice", "Importer"])).map(\.token.sequence) == [1, 2])
        #expect(try stack.store.history(PersistentHistoryRequest(contextNames: ["main"])).map(\.token.sequence) == [2, 3])
        #expect(try stack.store.history(PersistentHistoryRequest(entityNames: ["Department"])).map(\.token.sequence) == [1])
        #expect(try stack.store.history(PersistentHistoryRequest(since: firstTime)).count == 3)
        #expect(try stack.store.history(PersistentHistoryRequest(since: Date.distantFuture)).isEmpty)
        let error = strataError { _ = try stack.store.history(PersistentHistoryRequest(entityNames: ["Nope"])) }
        #expect(error?.code == .invalidArgument && error?.message.contains("Nope") == true)
    }

    @Test func anotherProcessesSaveIsReadWithItsAuthor() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (_, one, other) = try DocumentStack.twoConnections(url) { _ in () }
        other.context.transactionAuthor = "Other"
        _ = try insert(other.context, "Department", ["name": .string("Sales")])
        try other.context.save()
        let read = try one.store.history()
        #expect(read.map(\.author) == ["Other"])
        #expect(read.first?.changes.first?.kind == .insert)
        try one.store.close()
        try other.store.close()
    }

    @Test func deletingHistoryBeforeATokenDropsEarlierSegmentsAndKeepsTheRecords() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let context = stack.context
        var names: [String] = []
        for index in 0..<4 {
            names.append("Dept \(index)")
            _ = try insert(context, "Department", ["name": .string(names[index])])
            try context.save()
        }
        let keep = PersistentHistoryToken(sequence: 3)
        #expect(try stack.store.deleteHistory(before: keep) == 2)
        #expect(try stack.store.oldestHistoryToken == keep)
        #expect(try stack.store.history().map(\.token.sequence) == [3, 4])
        #expect(try stack.store.deleteHistory(before: keep) == 0, "deleting the same range again deletes nothing")
        try stack.store.close()

        let reopened = try DocumentStack.open(url, configuration: manualCompaction())
        let fetched = try reopened.context.fetch(FetchRequest(entityName: "Department"))
        #expect(Set(try fetched.map { try $0.string("name") }) == Set(names))
        #expect(try reopened.store.history().map(\.token.sequence) == [3, 4])
        // Undo reaches back only as far as the history kept.
        try reopened.context.restoreUndoHistory()
        #expect(reopened.undo.undoCount == 2)
        // New saves continue after the deleted range: tokens never repeat.
        _ = try insert(reopened.context, "Department", ["name": .string("New")])
        try reopened.context.save()
        #expect(try reopened.store.currentHistoryToken.sequence == 5)
        try reopened.store.close()
    }

    @Test func aSegmentWithAuthorIsFormatVersion3AndOneWithoutStaysVersion2() throws {
        let model = sharedExampleModel
        let plain = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 1_700_000_000), groups: [])
        var named = plain
        named.author = "Ada"
        named.contextName = "main"
        let v2 = try SegmentEncoder.encode(plain, model: model)
        let v3 = try SegmentEncoder.encode(named, model: model)
        #expect(v2[4] == 2 && v3[4] == 3)
        #expect(try SegmentDecoder.decode(v3, model: model, storeTag: 0, sequenceHint: 4) == named)
        #expect(try SegmentDecoder.decode(v2, model: model, storeTag: 0, sequenceHint: 4) == plain)
        var authorOnly = plain
        authorOnly.author = ""
        #expect(try SegmentDecoder.decode(SegmentEncoder.encode(authorOnly, model: model), model: model, storeTag: 0, sequenceHint: 4) == authorOnly)
        // A flag byte other than 00 or 01 is refused with its offset.
        var bad = v3
        let flagOffset = 4 + 1 + 1 + 6
        #expect(bad[flagOffset] == 1)
        bad[flagOffset] = 7
        let error = strataError { _ = try SegmentDecoder.decode(bad, model: model, storeTag: 0, sequenceHint: 4) }
        #expect(error?.code == .corruptSegment && error?.message.contains("author flag 0x07") == true)
    }
}
