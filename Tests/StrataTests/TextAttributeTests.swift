import Foundation
import Testing
@testable import Strata

/// The splices a context's unsaved log holds for its texts, and whether it holds any
/// whole-value update of a text.
private func loggedTextChanges(_ context: ManagedObjectContext) -> (splices: [TextEdit], textUpdates: Int) {
    var splices: [TextEdit] = []
    var updates = 0
    for batch in context.log.unsaved {
        for operation in batch.operations {
            switch operation {
            case .splice(_, _, let edit): splices.append(edit)
            case .update(let id, let changes): updates += changes.filter { id.entity.isText(slot: $0.slot) }.count
            default: continue
            }
        }
    }
    return (splices, updates)
}

@Suite struct TextAttributeModel {
    @Test func aTextIsAStringAttributeInJSONAndXcodeModels() throws {
        let json = textNoteModel.jsonRepresentation()
        #expect(String(decoding: json, as: UTF8.self).contains("\"text\""))
        let reread = try ManagedObjectModel(jsonData: json)
        let note = try reread.entity(named: "Note")
        #expect(note.attributesByName["title"]?.isText == true)
        #expect(note.attributesByName["tag"]?.isText == false)
        #expect(reread.versionHash == textNoteModel.versionHash)

        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("Notes.xml")
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Note">
              <attribute name="title" attributeType="String"><userInfo><entry key="strata.text" value="YES"/></userInfo></attribute>
              <attribute name="tag" attributeType="String"/>
            </entity>
            </model>
            """.utf8).write(to: url)
        let xcode = try ManagedObjectModel(xcdatamodelAt: url)
        #expect(try xcode.entity(named: "Note").attributesByName["title"]?.isText == true)
        #expect(try xcode.entity(named: "Note").attributesByName["tag"]?.isText == false)
    }

    @Test func aTextChangesTheModelsVersionHash() throws {
        let plain = try ManagedObjectModel(entities: [EntityDescription("Note", attributes: [AttributeDescription("title", .string)])])
        var text = AttributeDescription("title", .string)
        text.isText = true
        let texts = try ManagedObjectModel(entities: [EntityDescription("Note", attributes: [text])])
        #expect(plain.versionHash != texts.versionHash)
    }

    @Test func onlyStoredStringsCanBeTexts() throws {
        var number = AttributeDescription("count", .integer64)
        number.isText = true
        var transient = AttributeDescription("draft", .string, isTransient: true)
        transient.isText = true
        let error = try #require(throws: StrataError.self) {
            try ManagedObjectModel(entities: [EntityDescription("Note", attributes: [number, transient])])
        }
        #expect(error.code == .invalidModel)
        let reasons = error.problems.map(\.reason)
        #expect(reasons.contains { $0.contains("only a string attribute can be a text") })
        #expect(reasons.contains { $0.contains("cannot be transient") })
    }
}

@Suite struct TextAttributeEditing {
    @Test func typingIsLoggedAsSplicesAndReadsAsAString() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        stack.context.processPendingChanges()
        try note.type("Hello", at: 0, into: "body")
        try note.replaceCharacters(in: 0..<1, with: "J", forKey: "body")
        #expect(try note.text("body") == "Jello")
        stack.context.processPendingChanges()
        let logged = loggedTextChanges(stack.context)
        #expect(logged.textUpdates == 0, "a text changes by splices only")
        let edit = try #require(logged.splices.last)
        #expect(edit.insertions == ["Hello", "J"] || edit.insertions.joined() == "HelloJ")
        #expect(edit.deletions == ["H"])
    }

    @Test func settingAWholeStringBecomesTheFewestSplices() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("The quick fox"), forKey: "body")
        try stack.context.save()
        try note.setValue(.string("The quick brown fox"), forKey: "body")
        stack.context.processPendingChanges()
        let logged = loggedTextChanges(stack.context)
        #expect(logged.textUpdates == 0)
        #expect(logged.splices.count == 1)
        #expect(logged.splices.first?.insertions == ["brown "])
        #expect(logged.splices.first?.deletions == [])
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: note.objectID).text("body") == "The quick brown fox")
    }

    @Test func undoAndRedoApplyTheInverseSplices() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Hello world"), forKey: "title")
        try stack.context.save()
        stack.undo.removeAllActions()

        try note.replaceCharacters(in: 5..<11, with: "", forKey: "title")           // delete " world"
        stack.context.processPendingChanges()
        try note.type(", there", at: 5, into: "title")
        stack.context.processPendingChanges()
        #expect(try note.text("title") == "Hello, there")

        try stack.undo.undo()
        #expect(try note.text("title") == "Hello")
        try stack.undo.undo()
        #expect(try note.text("title") == "Hello world", "a deletion undone restores its characters where they were")
        try stack.undo.redo()
        #expect(try note.text("title") == "Hello")
        try stack.undo.redo()
        #expect(try note.text("title") == "Hello, there")
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: note.objectID).text("title") == "Hello, there")
        #expect(loggedTextChanges(stack.context).textUpdates == 0)
    }

    @Test func rollbackPutsTheSavedTextBack() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("draft"), forKey: "body")
        try stack.context.save()
        try note.type(" two", at: 5, into: "body")
        stack.context.rollback()
        #expect(try note.text("body") == "draft")
        try note.type("!", at: 5, into: "body")
        try stack.context.save()
        #expect(try stack.newContext().existingObject(with: note.objectID).text("body") == "draft!")
    }

    /// A rollback forgets the texts and puts the committed values back, without walking
    /// every unsaved splice back: after flushed typing, an undo all and a redo all, and
    /// across two objects and a deleted one, each shows its saved text and takes new splices.
    @Test func rollbackAfterFlushedTypingUndoAndRedoPutsEverySavedTextBack() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        let other = try stack.context.insertObject(forEntityName: "Note")
        let gone = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("draft"), forKey: "body")
        try other.setValue(.string("other"), forKey: "title")
        try gone.setValue(.string("gone"), forKey: "title")
        try stack.context.save()
        stack.undo.removeAllActions()
        for (offset, letter) in ["a", "b", "c"].enumerated() {
            try note.type(letter, at: 5 + offset, into: "body")
            stack.undo.setActionName("Typing")
        }
        try other.replaceCharacters(in: 0..<1, with: "", forKey: "title")
        stack.context.processPendingChanges()
        while stack.undo.canUndo { try stack.undo.undo() }
        while stack.undo.canRedo { try stack.undo.redo() }
        #expect(try note.text("body") == "draftabc")
        try other.type("X", at: 0, into: "title")
        stack.context.delete(gone)
        stack.context.processPendingChanges()
        stack.context.rollback()
        #expect(try note.text("body") == "draft")
        #expect(try other.text("title") == "other")
        #expect(!gone.isDeleted)
        #expect(try gone.text("title") == "gone")
        try note.type("!", at: 5, into: "body")
        try other.type("?", at: 5, into: "title")
        try stack.context.save()
        let fresh = stack.newContext()
        #expect(try fresh.existingObject(with: note.objectID).text("body") == "draft!")
        #expect(try fresh.existingObject(with: other.objectID).text("title") == "other?")
        #expect(try fresh.existingObject(with: gone.objectID).text("title") == "gone")
    }

    @Test func utf16RangesAreConvertedAtTheEdge() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("a😀b"), forKey: "body")
        // "😀" is two UTF-16 units and one scalar: "b" is at UTF-16 offset 3.
        try note.replaceCharacters(in: NSRange(location: 3, length: 1), with: "c", forKey: "body")
        #expect(try note.text("body") == "a😀c")
        let split = try #require(throws: StrataError.self) {
            try note.replaceCharacters(in: NSRange(location: 2, length: 1), with: "x", forKey: "body")
        }
        #expect(split.code == .invalidArgument && split.message.contains("splits a character"))
    }

    @Test func badRangesAndPlainStringsAreRefusedWithWhatToDo() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("abc"), forKey: "body")
        let outside = try #require(throws: StrataError.self) { try note.replaceCharacters(in: 2..<5, with: "", forKey: "body") }
        #expect(outside.code == .invalidArgument && outside.message.contains("has 3 characters"))
        #expect(try note.text("body") == "abc", "a refused splice changes nothing")
        let plain = try #require(throws: StrataError.self) { try note.replaceCharacters(in: 0..<0, with: "x", forKey: "tag") }
        #expect(plain.code == .typeMismatch && plain.message.contains("setValue"))
    }
}

@Suite struct TextCursors {
    @Test func aCursorStaysWithItsCharacterThroughEditsHereAndElsewhere() throws {
        let stack = Stack(model: textNoteModel)
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Hello world"), forKey: "body")
        try stack.context.save()
        let caret = try note.cursor(at: 6, forKey: "body")   // before "w", after the space
        let end = try note.cursor(at: 11, forKey: "body")
        #expect(try note.position(of: .start, forKey: "body") == 0)

        try note.replaceCharacters(in: 0..<0, with: ">> ", forKey: "body")
        #expect(try note.position(of: caret, forKey: "body") == 9)
        try note.replaceCharacters(in: 8..<9, with: "", forKey: "body")   // the space the caret is anchored to
        #expect(try note.text("body") == ">> Helloworld")
        #expect(try note.position(of: caret, forKey: "body") == 8, "a cursor whose character is deleted stays where it was")
        #expect(try note.position(of: end, forKey: "body") == 13)
        try stack.context.save()

        // Another context types at the start; this one sees the caret move once it reads the text again.
        let otherContext = stack.newContext()
        let other = try otherContext.existingObject(with: note.objectID)
        try other.replaceCharacters(in: 0..<0, with: "Re: ", forKey: "body")
        try otherContext.save()
        stack.context.refresh(note, mergeChanges: false)
        #expect(try note.text("body") == "Re: >> Helloworld")
        #expect(try note.position(of: caret, forKey: "body") == 12)
        #expect(try other.position(of: caret, forKey: "body") == 12, "a cursor means the same in every context")

        let encoded = try JSONEncoder().encode(caret)
        #expect(try JSONDecoder().decode(TextCursor.self, from: encoded) == caret)
        let outside = try #require(throws: StrataError.self) { try note.cursor(at: 99, forKey: "body") }
        #expect(outside.code == .invalidArgument)
    }
}

/// The selection an editor keeps with each undo group, as cursors (docs/TEXT.md, "Cursors"):
/// handed back by undo and redo, it resolves to where the text now has it.
struct CursorSelection: Sendable, Equatable {
    var anchor: TextCursor
    var head: TextCursor
}

@Suite struct TextSelectionsInUndoGroups {
    @Test func undoHandsBackTheSelectionTheGroupRecordedAndItResolvesInTheTextAsItIs() throws {
        let stack = Stack(model: textNoteModel)
        stack.undo.coalescingInterval = 60
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Hello world"), forKey: "body")
        try stack.context.save()
        stack.undo.removeAllActions()

        // Select "world" and replace it by typing "there", one keystroke per flush.
        let before = CursorSelection(anchor: try note.cursor(at: 6, forKey: "body"), head: try note.cursor(at: 11, forKey: "body"))
        try note.replaceCharacters(in: 6..<11, with: "", forKey: "body")
        for (offset, scalar) in "there".unicodeScalars.enumerated() {
            try note.replaceCharacters(in: (6 + offset)..<(6 + offset), with: String(scalar), forKey: "body")
            stack.context.processPendingChanges()
            stack.undo.setActionName("Typing")
            stack.undo.setGroupMetadata(before)
        }
        #expect(stack.undo.undoGroups.count == 1, "the keystrokes coalesce into one step")
        // Someone else's edit before the selection, merged meanwhile, moves it along.
        try note.replaceCharacters(in: 0..<0, with: "Oh, ", forKey: "body")
        stack.context.processPendingChanges()
        try stack.undo.undo()   // "Oh, "
        let recorded = try #require(try stack.undo.undo() as? CursorSelection)
        #expect(try note.text("body") == "Hello world")
        let range = try note.position(of: recorded.anchor, forKey: "body")..<note.position(of: recorded.head, forKey: "body")
        #expect(range == 6..<11, "the selection comes back on the restored word")
    }
}

/// Keystrokes coalesced into one undo step keep one batch with one splice of their text
/// (docs/TEXT.md, "Undo"), which undo and redo apply whole.
@Suite struct TextUndoStepsJoinTheirKeystrokes {
    @Test func aWordTypedKeyByKeyIsOneBatchWithOneInsertion() throws {
        let stack = Stack(model: textNoteModel)
        stack.undo.coalescingInterval = 60
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Hello !"), forKey: "body")
        try stack.context.save()
        stack.undo.removeAllActions()

        for (offset, scalar) in "world".unicodeScalars.enumerated() {
            try note.replaceCharacters(in: (6 + offset)..<(6 + offset), with: String(scalar), forKey: "body")
            stack.undo.setActionName("Typing")
        }
        // A second place in the same step: the same batch, a second step of its splice.
        try note.replaceCharacters(in: 0..<0, with: ">", forKey: "body")
        stack.undo.setActionName("Typing")
        #expect(try note.text("body") == ">Hello world!")

        #expect(stack.undo.undoCount == 1)
        let batches = try #require(stack.undo.undoStack.last?.batches)
        #expect(batches.count == 1, "\(batches.count) batches for six keystrokes")
        guard batches.count == 1, batches[0].operations.count == 1, case .splice(_, _, let edit) = batches[0].operations[0] else {
            Issue.record("the step holds \(batches.first?.operations ?? [])")
            return
        }
        #expect(edit.insertions == ["world", ">"])
        #expect(edit.deletedCount == 0)

        try stack.undo.undo()
        #expect(try note.text("body") == "Hello !")
        try stack.undo.redo()
        #expect(try note.text("body") == ">Hello world!")
        try stack.undo.undo()
        #expect(try note.text("body") == "Hello !")
    }
}

@Suite struct TextAttributeDocuments {
    @Test func splicesSurviveSavesCompactionAndReopening() throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let note = try stack.context.insertObject(forEntityName: "Note")
        try stack.context.save()
        try note.type("Hello world", at: 0, into: "body")
        try stack.context.save()
        let uri = note.objectID.uriRepresentation()

        try stack.reopen(configuration: manualCompaction())
        var reopened = try stack.object(uri)
        #expect(try reopened.text("body") == "Hello world")
        try reopened.type("big ", at: 6, into: "body")
        try stack.context.save()
        try stack.store.compact()
        #expect(try sqlRows(stack.url, "SELECT count(*) FROM strata_text").first?.first == .integer(1),
                "a text with splices keeps its identities in the snapshot")
        #expect(try sqlRows(stack.url, "SELECT body FROM Note").first?.first == .text("Hello big world"),
                "the snapshot's column holds the plain text")

        try stack.reopen(configuration: manualCompaction())
        reopened = try stack.object(uri)
        try reopened.replaceCharacters(in: 0..<5, with: "Goodbye", forKey: "body")
        try stack.context.save()
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.object(uri).text("body") == "Goodbye big world")
        let verification = try DocumentVerifier.verify(stack.url)
        #expect(verification.isValid, "\(verification.problems)")
    }

    /// A deleted record keeps its text's characters: the undo of its delete brings them
    /// back, so the undo of the typing before the delete still finds them — after a save and
    /// a compaction between, and replayed by verify.
    @Test func undoingADeleteBringsATextBackWithItsCharacters() throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let note = try stack.context.insertObject(forEntityName: "Note")
        try stack.context.save()
        stack.context.processPendingChanges()
        try note.type("Milk", at: 0, into: "body")
        try stack.context.save()
        stack.context.delete(note)
        try stack.context.save()
        _ = try stack.store.compact()

        let id = note.objectID
        try stack.undo.undo()   // the delete
        let revived = try stack.context.existingObject(with: id)
        #expect(try revived.text("body") == "Milk")
        try stack.context.save()
        try stack.undo.undo()   // the typing
        #expect(try revived.text("body") == "")
        try stack.context.save()
        try stack.undo.redo()
        try revived.type("!", at: 4, into: "body")
        try stack.context.save()
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.context.existingObject(with: id).text("body") == "Milk!")
        let verification = try DocumentVerifier.verify(stack.url)
        #expect(verification.isValid, "\(verification.problems)")
    }

    @Test func twoWritersTypingIntoOneTextBothKeepTheirWords() throws {
        let directory = try TemporaryDirectory()
        let (uri, one, other) = try DocumentStack.twoConnections(directory.file(), model: textNoteModel) { stack in
            let note = try stack.context.insertObject(forEntityName: "Note")
            try note.setValue(.string("shared"), forKey: "title")
            try stack.context.save()
            return note.objectID.uriRepresentation()
        }
        let mine = try one.object(uri)
        let theirs = try other.object(uri)
        try mine.type(" mine", at: 6, into: "title")
        try theirs.type("theirs ", at: 0, into: "title")
        try one.context.save()
        try other.context.save()
        #expect(try theirs.text("title") == "theirs shared mine", "the second save sees both words")

        one.context.refresh(mine, mergeChanges: true)
        _ = try one.store.catchUp()
        one.context.refresh(mine, mergeChanges: false)
        #expect(try mine.text("title") == "theirs shared mine")

        // Undo in one connection removes only its own word.
        try one.undo.undo()
        #expect(try mine.text("title") == "theirs shared")
        try one.context.save()
        _ = try other.store.catchUp()
        other.context.refresh(theirs, mergeChanges: false)
        #expect(try theirs.text("title") == "theirs shared")
    }
}

@Suite struct TextEditInverses {
    @Test func anUndoneDeletionComesBackBesideWhatOthersTypedMeanwhile() throws {
        var mine = TextSequence(base: "abcdef")
        var edit = TextEdit()
        for step in mine.replace(at: 2, length: 2, with: [], peer: 7) { edit.append(step) }   // delete "cd"
        #expect(mine.string == "abef")
        // Someone else types "X" between "b" and "e".
        var theirs = mine
        let typed = theirs.insert(["X"], at: 2, peer: 9)
        let insert = try #require(typed)
        try mine.apply(insert)
        #expect(mine.string == "abXef")
        _ = try mine.apply(edit.inverse, peer: 7)
        #expect(mine.string.contains("cd") && mine.string.contains("X") && mine.string.hasPrefix("ab") && mine.string.hasSuffix("ef"))
    }

    @Test func textsRoundTripThroughTheirEncodingAndDamageIsNamed() throws {
        var text = TextSequence(base: "hello")
        _ = text.replace(at: 1, length: 2, with: Array("EY".unicodeScalars), peer: 3)
        _ = text.replace(at: 0, length: 0, with: Array(">> ".unicodeScalars), peer: 4)
        let bytes = TextCoding.encode(text)
        let decoded = try TextCoding.decodeSequence(bytes)
        #expect(decoded.string == text.string)
        #expect(decoded.shownIdentities() == text.shownIdentities())
        #expect(!decoded.isFirstValueOnly && TextSequence(base: "x").isFirstValueOnly)
        let damaged = try #require(throws: StrataError.self) { try TextCoding.decodeSequence(Array(bytes.dropLast(2))) }
        #expect(damaged.code == .corruptSegment)
    }
}
