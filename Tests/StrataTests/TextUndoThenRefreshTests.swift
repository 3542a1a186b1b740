import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Found by the text convergence property test (`PostgresTextPropertyTests`, seed
/// 1230215516; issue 35, item 7): a refresh with `mergeChanges: false` forgot a context's
/// text while the context's log still held its flushed, unsaved splices (and, for a
/// discarded one, the splice that reverts it). The text was read again from the store
/// without them, so the next splice was given one of their characters' identities again:
/// after an unsaved undo the save was refused ("operations arrived out of causal order"),
/// and after a discarded splice the next one was silently lost (the store took it for a
/// repeat). A text read from the store now has the context's unsaved splices applied
/// (docs/TEXT.md, "In a context").
@Suite struct TextUndoThenRefresh {
    @Test func anUnsavedUndoneDeletionThenARefreshKeepsTheNextSpliceSavable() throws {
        let stack = try DocumentStack(model: textNoteModel)
        let context = stack.context
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue(.string("abcdef"), forKey: "title")
        try context.save()
        try note.replaceCharacters(in: 3..<4, with: "", forKey: "title")
        try context.undoManager!.undo()          // puts "d" back as a new character, unsaved
        #expect(try note.text("title") == "abcdef")
        context.refresh(note, mergeChanges: false)
        try note.replaceCharacters(in: 2..<2, with: "XY", forKey: "title")
        do {
            try context.save()
            #expect(try ManagedObjectContext(coordinator: stack.coordinator).existingObject(with: note.objectID).text("title") == "abXYcdef")
        }
    }

    @Test func anUnsavedFlushedSpliceThenARefreshKeepsTheNextSpliceSavable() throws {
        let stack = try DocumentStack(model: textNoteModel)
        let context = stack.context
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue(.string("abcdef"), forKey: "title")
        try context.save()
        try note.replaceCharacters(in: 6..<6, with: "g", forKey: "title")
        context.processPendingChanges()
        context.refresh(note, mergeChanges: false)
        try note.replaceCharacters(in: 0..<0, with: "Z", forKey: "title")
        do {
            try context.save()
            let stored = try ManagedObjectContext(coordinator: stack.coordinator).existingObject(with: note.objectID).text("title")
            #expect(stored == "Zabcdef")
        }
    }

    /// Found by the same property test through PostgreSQL (seeds 2195335193–2195335195): an
    /// object whose edits were undone before the save is not among the saved ones, so the
    /// save left the context's text of it as it was, without what another connection had
    /// spliced in meanwhile. Once nothing held the object, it was read again from the store,
    /// merged text and all, while the context kept its old text: the next splice wrote the
    /// old string back (the other connection's characters vanished from this one), and an
    /// undo turned the difference into new characters of its own (they showed twice). A
    /// context now reads a text again whenever it reads the object's values again.
    @Test func aTextReadAgainWithItsObjectShowsWhatAnotherConnectionSplicedMeanwhile() throws {
        let directory = try TemporaryDirectory()
        let (id, one, other) = try DocumentStack.twoConnections(directory.file(), model: textNoteModel) { stack in
            let note = try stack.context.insertObject(forEntityName: "Note")
            try note.setValue(.string("abc"), forKey: "title")
            try stack.context.save()
            return note.objectID
        }
        defer { try? one.store.close(); try? other.store.close() }
        do {
            let note = try one.context.existingObject(with: id)
            try note.replaceCharacters(in: 0..<0, with: "X", forKey: "title")
            one.context.processPendingChanges()
            try one.undo.undo()
            #expect(try note.text("title") == "abc")
        }
        let theirs = try other.context.existingObject(with: id)
        try theirs.replaceCharacters(in: 3..<3, with: "Z", forKey: "title")
        try other.context.save()
        try one.context.save()   // the undone splices, merged with the other connection's

        let note = try one.context.existingObject(with: id)
        #expect(try note.text("title") == "abcZ")
        try note.replaceCharacters(in: 0..<0, with: "Q", forKey: "title")
        #expect(try note.text("title") == "QabcZ")
        try one.undo.undo()
        #expect(try note.text("title") == "abcZ")
        try one.context.save()
        let fresh = try DocumentStack.open(directory.file(), model: textNoteModel, configuration: manualCompaction())
        defer { try? fresh.store.close() }
        #expect(try fresh.context.existingObject(with: id).text("title") == "abcZ")
    }
}
