import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Contexts on one document editing one text at random — inserts, deletes, replacements,
/// undos and redos — each taking in the others' saves at random before saving its own
/// (docs/TEXT.md, "Merging before a save"): after every step a context's string is its
/// characters' text, and in the end every context, the document reopened and a replay of
/// its log hold one text in which nothing typed is lost unless deleted, nothing shows
/// twice and no two runs interleave (``TextConvergenceHistory``).
@Suite struct TextMergeBeforeSaveProperty {
    @Test func contextsTakingInEachOthersSavesBeforeTheirOwnConverge() throws {
        for seed in textPropertySeeds("TextMergeBeforeSave.contexts") { try run(seed: seed) }
    }

    private func run(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        var history = TextConvergenceHistory()
        let first = history.freshRun(4)
        let created = try stack.context.insertObject(forEntityName: "Note")
        try created.setValue(.string(first), forKey: "body")
        try stack.context.save()
        history.record(replica: 0, kind: "initial", typed: [first], before: "", after: first, removes: false)
        let id = created.objectID
        let key = TextKey(id: id, slot: try #require(id.entity.slot(forKey: "body")))

        let contexts = (0..<Int.random(in: 2...4, using: &random)).map { _ in stack.newContext() }
        let notes = try contexts.map { try $0.existingObject(with: id) }
        for context in contexts { context.undoManager?.coalescingInterval = 0 }
        var recentPlace: Int?
        var merges = 0
        for step in 0..<120 {
            let replica = Int.random(in: 0..<contexts.count, using: &random)
            let context = contexts[replica], note = notes[replica]
            let undo = try #require(context.undoManager)
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 2 {
                context.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
                merges += 1
            } else if roll < 3 {
                try context.save()
            } else {
                // The text as the context edits it: a context that has not taken in others'
                // saves takes the store's text at its first use of the text (docs/TEXT.md,
                // "In a context"), as an editor placing its caret does.
                _ = try note.position(of: .start, forKey: "body")
                let before = try note.text("body")
                let edit = RandomTextEdit.random(length: before.unicodeScalars.count, recentPlace: recentPlace,
                                                 canUndo: undo.canUndo, canRedo: undo.canRedo, history: &history, using: &random)
                switch edit {
                case .undo: try undo.undo()
                case .redo: try undo.redo()
                default:
                    let splice = try #require(edit.splice)
                    try note.replaceCharacters(in: splice.range, with: splice.text, forKey: "body")
                }
                context.processPendingChanges()
                let after = try note.text("body")
                history.record(replica: replica, kind: edit.kind, typed: edit.typed, before: before, after: after,
                               removes: edit.removes, note: "step \(step): \(edit)", expected: edit.applied(to: before))
                recentPlace = edit.place
            }
            let shown = try note.text("body")
            if let text = context.texts[key] {
                try #require(text.sequence.string == shown, "seed \(seed), step \(step): context \(replica) shows \"\(shown)\", its characters \"\(text.sequence.string)\"")
            }
        }
        #expect(merges > 0, "seed \(seed)")

        for context in contexts { try context.save() }
        for (context, note) in zip(contexts, notes) { context.refresh(note, mergeChanges: false) }
        var finals = try notes.map { try $0.text("body") }
        finals.append(try stack.newContext().existingObject(with: id).text("body"))
        let uri = id.uriRepresentation()
        try stack.reopen(configuration: manualCompaction())
        let reopened = try stack.object(uri).text("body")
        let problems = history.problems(finalTexts: finals, replayed: [("reopened", reopened)])
        #expect(problems.isEmpty, "seed \(seed):\n\(problems.joined(separator: "\n"))")
        let verification = try DocumentVerifier.verify(stack.url)
        #expect(verification.isValid, "seed \(seed): \(verification.problems)")
    }
}
