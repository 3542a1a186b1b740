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
}
