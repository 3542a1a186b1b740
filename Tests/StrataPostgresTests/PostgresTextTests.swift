import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Texts on a PostgreSQL document (issue 35, item 7; docs/TEXT.md): stores on several
/// "machines" splicing one title converge, keep every word whole, undo only their own, and a
/// store that joins after the server compacted names the same characters.
@Suite("PostgreSQL document: texts edited by several stores")
struct PostgresTextTests {
    static let model: ManagedObjectModel = {
        var title = AttributeDescription("title", .string)
        title.isText = true
        return try! ManagedObjectModel(entities: [EntityDescription("Note", attributes: [title])])
    }()

    static func title(_ stack: PostgresStack, _ id: ManagedObjectID) throws -> String {
        _ = try stack.store.catchUp()
        let note = try stack.context.existingObject(with: id)
        stack.context.refresh(note, mergeChanges: false)
        if case .string(let value) = try note.value(forKey: "title") { return value }
        return ""
    }

    @Test func storesSplicingOneTitleConvergeAndALateStoreJoinsAfterCompaction() throws {
        let name = uniqueDocumentName("text")
        let first = try PostgresStack(name, listens: false, model: Self.model, serverCompactionThreshold: 3)
        defer { first.close() }
        let note = try first.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("shared"), forKey: "title")
        try first.context.save()
        let id = note.objectID
        let others = try (0..<2).map { _ in try PostgresStack(name, create: false, listens: false, model: Self.model, serverCompactionThreshold: 3) }
        defer { others.forEach { $0.close() } }
        let stacks = [first] + others
        var random = SeededGenerator(seed: testSeed("PostgresText.converge"))
        var words: [String] = []
        for round in 0..<4 {
            for (index, stack) in stacks.enumerated().shuffled(using: &random) {
                let word = "<\(round)\(index)>"
                words.append(word)
                let object = try stack.context.existingObject(with: id)
                let end = try Self.title(stack, id).unicodeScalars.count
                let at = Bool.random(using: &random) ? 0 : end
                try object.replaceCharacters(in: at..<at, with: word, forKey: "title")
                try stack.context.save()
            }
        }
        let titles = try stacks.map { try Self.title($0, id) }
        #expect(Set(titles).count == 1, "\(titles)")
        for word in words { #expect(titles[0].components(separatedBy: word).count == 2, "\(word) in \(titles[0])") }

        // A store opened now starts from the server's snapshot: its texts name the same
        // characters as the segments after it, so its edits apply everywhere.
        _ = try first.store.compact()
        let late = try PostgresStack(name, create: false, listens: false, model: Self.model)
        defer { late.close() }
        let lateNote = try late.context.existingObject(with: id)
        try lateNote.replaceCharacters(in: 0..<0, with: "[late]", forKey: "title")
        try late.context.save()
        for stack in stacks { #expect(try Self.title(stack, id) == "[late]" + titles[0]) }

        // An undo in one store removes its last word only, everywhere.
        try others[0].context.undoManager!.undo()
        try others[0].context.save()
        let after = try ([late] + stacks).map { try Self.title($0, id) }
        #expect(Set(after).count == 1, "\(after)")
        #expect(words.filter { !after[0].contains($0) }.count == 1, "\(after[0])")
    }
}
