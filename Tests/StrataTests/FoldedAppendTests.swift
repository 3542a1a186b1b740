import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// `DocumentReplay.append(_:of:to:folding:)` saves consecutive segments together (the
/// inspector's replays, docs/INSPECTOR.md "Time travel"): the copy must end exactly where
/// appending them one save each ends, texts included.
@Suite struct FoldedAppendTests {
    /// Every note's title, body and tag, by primary key.
    private func notes(_ store: DocumentStore) throws -> [Int64: [String]] {
        let coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        var result: [Int64: [String]] = [:]
        for note in try context.fetch(FetchRequest(entityName: "Note")) {
            result[note.objectID.primaryKey] = [try note.text("title"), try note.text("body"),
                                                try note.value(forKey: "tag").textValue]
        }
        return result
    }

    @Test func foldedSegmentsEndWhereOneSaveEachEnds() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file("source.strata"), model: textNoteModel, configuration: manualCompaction())
        let context = stack.context
        var kept: [ManagedObject] = []
        for round in 0..<12 {
            let note = try context.insertObject(forEntityName: "Note")
            try note.type("note \(round)", at: 0, into: "title")
            try note.setValue(.string("tag \(round)"), forKey: "tag")
            kept.append(note)
            try kept[round / 2].type(" word\(round)", at: try kept[round / 2].text("body").unicodeScalars.count, into: "body")
            if round % 3 == 2 {
                try kept[0].replaceCharacters(in: 0..<1, with: "", forKey: "body")
            }
            if round % 4 == 3 {
                context.delete(kept.remove(at: 1))
            }
            try context.save()
        }
        let last = try stack.store.logPosition.last
        #expect(last == 12)

        let settings = manualCompaction()
        let oneEach = try DocumentStore(creatingAt: directory.file("each.strata"), model: textNoteModel, configuration: settings)
        let folded = try DocumentStore(creatingAt: directory.file("folded.strata"), model: textNoteModel, configuration: settings)
        #expect(try DocumentReplay.append(1...last, of: stack.store, to: oneEach) == 12)
        // In two spans, as a travel continuing from a checkpoint appends them.
        #expect(try DocumentReplay.append(1...5, of: stack.store, to: folded, folding: true) == 5)
        #expect(try DocumentReplay.append(6...last, of: stack.store, to: folded, folding: true) == 7)

        #expect(try oneEach.logPosition.last == 12)
        #expect(try folded.logPosition.last == 2)   // one save per span
        let expected = try notes(stack.store)
        #expect(expected.count == 9)
        #expect(try notes(oneEach) == expected)
        #expect(try notes(folded) == expected)
        try folded.compact()
        #expect(try notes(folded) == expected)
    }
}
