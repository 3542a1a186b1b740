import Foundation
import Testing
@testable import Strata

/// A context whose text has edits of its own not saved yet takes in what others saved into
/// that text before it saves (docs/TEXT.md, "Merging before a save"): both sides show at
/// once, its cursors stay with their characters, its undo reverts only its own edits, and
/// its save neither loses nor repeats anything.
@Suite struct TextMergeBeforeSave {
    /// A document holding one note titled "shared", tagged "plain"; its ID.
    private func sharedNote(_ stack: DocumentStack) throws -> ManagedObjectID {
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("shared"), forKey: "title")
        try note.setValue(.string("plain"), forKey: "tag")
        try stack.context.save()
        stack.undo.removeAllActions()
        return note.objectID
    }

    @Test func anotherContextsSaveShowsBesideUnsavedTypingAndUndoRemovesOnlyOurs() throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let id = try sharedNote(stack)
        let note = try stack.context.existingObject(with: id)
        let writer = stack.newContext()
        let theirs = try writer.existingObject(with: id)

        try note.type(" mine", at: 6, into: "title")
        try note.setValue(.string("mine"), forKey: "tag")
        let inside = try note.cursor(at: 3, forKey: "title")   // after "sha"
        let end = try note.cursor(at: 11, forKey: "title")     // after " mine"
        try theirs.type("theirs ", at: 0, into: "title")
        try theirs.setValue(.string("theirs"), forKey: "tag")
        try writer.save()

        stack.context.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        #expect(try note.text("title") == "theirs shared mine", "both words show before this context saves")
        #expect(note.hasChanges)
        #expect(try note.position(of: inside, forKey: "title") == 10, "a cursor stays after its character")
        #expect(try note.position(of: end, forKey: "title") == 18)
        #expect(try note.value(forKey: "tag") == .string("mine"), "a plain string keeps its pending value, as before")
        #expect(try stack.newContext().existingObject(with: id).text("title") == "theirs shared",
                "nothing of this context's is saved by the merge")

        // A second save of theirs merges into the text that already holds the first.
        try theirs.type("> ", at: 0, into: "title")
        try writer.save()
        stack.context.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        #expect(try note.text("title") == "> theirs shared mine")
        #expect(try note.position(of: end, forKey: "title") == 20)

        // Undo takes back this context's typing only; redo puts it back beside theirs.
        try stack.undo.undo()
        #expect(try note.text("title") == "> theirs shared")
        #expect(try note.value(forKey: "tag") == .string("plain"))
        try stack.undo.redo()
        #expect(try note.text("title") == "> theirs shared mine")
        #expect(try note.position(of: end, forKey: "title") == 20, "the cursor follows the characters redo put back")

        try stack.context.save()
        #expect(try note.text("title") == "> theirs shared mine", "the save neither repeats nor loses a character")
        #expect(try note.value(forKey: "tag") == .string("mine"))
        stack.context.refresh(note, mergeChanges: false)
        #expect(try note.text("title") == "> theirs shared mine")
        writer.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        #expect(try theirs.text("title") == "> theirs shared mine")

        // Both contexts go on typing into the same characters.
        try theirs.type("!", at: 20, into: "title")
        try writer.save()
        try note.type("?", at: 0, into: "title")
        stack.context.mergeChanges(fromContextDidSave: SaveChanges(updated: [id]))
        let theirsNow = try theirs.text("title")
        let mineNow = try note.text("title")
        #expect(mineNow == "?> theirs shared mine!", "theirs: \(theirsNow)")
        try stack.context.save()

        let uri = id.uriRepresentation()
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.object(uri).text("title") == "?> theirs shared mine!", "the reopened document holds the same text")
        let verification = try DocumentVerifier.verify(stack.url)
        #expect(verification.isValid, "\(verification.problems)")
    }

    @Test func aRefreshKeepingUnflushedEditsMergesThemWithTheStoresText() throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let id = try sharedNote(stack)
        let note = try stack.context.existingObject(with: id)
        let writer = stack.newContext()
        let theirs = try writer.existingObject(with: id)

        // Typed and set as a whole string, neither flushed yet.
        try note.type("my ", at: 0, into: "title")
        try note.setValue(.string("my shared note"), forKey: "title")
        let caret = try note.cursor(at: 9, forKey: "title")   // after "my shared"
        try theirs.type(" (theirs)", at: 6, into: "title")
        try writer.save()

        stack.context.refresh(note, mergeChanges: true)
        // Both words went in right after "shared" at once: FugueMax orders them by peer.
        let merged = try note.text("title")
        #expect(["my shared (theirs) note", "my shared note (theirs)"].contains(merged), "\(merged)")
        #expect(try note.position(of: caret, forKey: "title") == 9)

        stack.context.processPendingChanges()
        try stack.undo.undo()
        #expect(try note.text("title") == "shared (theirs)", "undo takes back this context's edits only")
        try stack.undo.redo()
        #expect(try note.text("title") == merged)
        try stack.context.save()
        #expect(try note.text("title") == merged)
        #expect(try stack.newContext().existingObject(with: id).text("title") == merged)
    }

    @Test func theFirstEditOfATextOthersSavedIntoSinceItWasReadTakesTheirsIn() throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let id = try sharedNote(stack)
        let note = try stack.context.existingObject(with: id)
        #expect(try note.text("title") == "shared")
        let writer = stack.newContext()
        try writer.existingObject(with: id).type("their ", at: 0, into: "title")
        try writer.save()

        // No merge: the object still shows what it read, until its first edit of the text.
        #expect(try note.text("title") == "shared")
        try note.type("!", at: 12, into: "title")
        #expect(try note.text("title") == "their shared!", "the string and the characters it edits agree")
        try stack.undo.undo()
        #expect(try note.text("title") == "their shared")
        try stack.undo.redo()
        try stack.context.save()
        #expect(try note.text("title") == "their shared!")
        #expect(try stack.newContext().existingObject(with: id).text("title") == "their shared!")
    }

    @Test func anotherConnectionsSaveMergesIntoAnAutomaticallyMergingContext() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (uri, one, other) = try DocumentStack.twoConnections(url, model: textNoteModel) { stack in
            let note = try stack.context.insertObject(forEntityName: "Note")
            try note.setValue(.string("shared"), forKey: "title")
            try stack.context.save()
            return note.objectID.uriRepresentation()
        }
        one.context.automaticallyMergesChangesFromParent = true
        let mine = try one.object(uri)
        let theirs = try other.object(uri)
        try mine.type(" mine", at: 6, into: "title")
        let caret = try mine.cursor(at: 6, forKey: "title")   // after "shared"
        try theirs.type("theirs ", at: 0, into: "title")
        try other.context.save()

        _ = try one.coordinator.catchUp()
        _ = try one.context.count(for: FetchRequest(entityName: "Note"))   // the confinement context takes the merge in
        #expect(try mine.text("title") == "theirs shared mine")
        #expect(try mine.position(of: caret, forKey: "title") == 13)

        try one.undo.undo()
        #expect(try mine.text("title") == "theirs shared")
        try one.undo.redo()
        #expect(try mine.text("title") == "theirs shared mine")
        try one.context.save()
        #expect(try mine.text("title") == "theirs shared mine")

        _ = try other.coordinator.catchUp()
        other.context.refresh(theirs, mergeChanges: false)
        #expect(try theirs.text("title") == "theirs shared mine")
        try one.store.close()
        try other.store.close()

        let reopened = try DocumentStack.open(url, model: textNoteModel, configuration: manualCompaction())
        #expect(try reopened.object(uri).text("title") == "theirs shared mine")
        try reopened.store.close()
        let verification = try DocumentVerifier.verify(url)
        #expect(verification.isValid, "\(verification.problems)")
    }
}
