import Foundation
import Strata
import Testing

/// Another process's splice (the built `strata` tool) reaches a watching document's view
/// context while it has typing of its own in the same text, not saved: both show at once,
/// undo takes back only this process's typing, and its save keeps both (docs/TEXT.md,
/// "Merging before a save").
@Suite("another process's splices merge into unsaved typing")
struct TextMergeProcessTests {
    private static func title(of note: ManagedObject) throws -> String {
        if case .string(let title) = try note.value(forKey: "title") { return title }
        return ""
    }

    @Test func anotherProcesssWordShowsBesideUnsavedTypingAndUndoRemovesOnlyOurs() throws {
        let sandbox = try TemporaryDirectory()
        let (document, reference) = try TextSpliceCommands.note(sandbox, title: "shared")
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        options.restoresUndoHistory = false
        options.configuration.watchesForRemoteChanges = true
        options.configuration.remoteChangePollInterval = 0.05
        let model = try ManagedObjectModel(jsonData: Data(TextSpliceCommands.model.utf8))
        let container = try PersistentContainer(name: "Notes", model: model, url: URL(fileURLWithPath: document), options: options)
        let context = container.viewContext
        let note = try #require(try context.fetch(FetchRequest(entityName: "Note")).first)
        for (offset, scalar) in " mine".unicodeScalars.enumerated() {
            try note.replaceCharacters(in: (6 + offset)..<(6 + offset), with: String(scalar), forKey: "title")
        }
        let caret = try note.cursor(at: 6, forKey: "title")   // after "shared"

        let splice = try CLI.strata("splice", document, reference, "title", "--at", "0", "--insert", "theirs ")
        #expect(splice.status == 0, "\(splice.stderr)")
        #expect(splice.stdout == "theirs shared\n", "the other process sees only what was saved")
        // The confinement view context merges what the watcher caught up with at its next
        // operation; the generous timeout only bounds a hang.
        let deadline = Date().addingTimeInterval(60)
        while try Self.title(of: note) != "theirs shared mine", Date() < deadline {
            _ = try context.count(for: FetchRequest(entityName: "Note"))
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(try Self.title(of: note) == "theirs shared mine", "both words show before this process saves")
        #expect(note.hasChanges)
        #expect(try note.position(of: caret, forKey: "title") == 13)

        let undo = try #require(context.undoManager)
        try undo.undo()
        #expect(try Self.title(of: note) == "theirs shared", "undo takes back only this process's typing")
        try undo.redo()
        #expect(try Self.title(of: note) == "theirs shared mine")
        try context.save()
        #expect(try Self.title(of: note) == "theirs shared mine")
        #expect(try TextSpliceCommands.title(document, reference) == "theirs shared mine", "the other processes read the same text")
        try container.close()
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}
