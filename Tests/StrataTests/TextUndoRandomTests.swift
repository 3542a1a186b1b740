import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Random typing into one text, the way an editor types: one splice and one flush per
/// keystroke, keystrokes joined into undo steps by the undo manager's coalescing, saves
/// between; then every step undone back to the start and redone to the end, the text
/// checked against the expected one after every step (docs/TEXT.md, "Undo").
@Suite struct TextUndoRandom {
    /// A keystroke: a run of typing, a backspace or a forward delete, at a random caret.
    private struct Keystroke {
        var range: Range<Int>
        var inserted: String
    }

    private static func keystroke(in length: Int, caret: inout Int, random: inout SeededGenerator) -> Keystroke {
        if Int.random(in: 0..<8, using: &random) == 0 { caret = Int.random(in: 0...length, using: &random) }
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 2, caret > 0 {                         // backspace, sometimes a selection
            let count = min(caret, Int.random(in: 1...3, using: &random))
            caret -= count
            return Keystroke(range: caret..<(caret + count), inserted: "")
        }
        if roll < 3, caret < length {                    // forward delete
            return Keystroke(range: caret..<(caret + min(length - caret, Int.random(in: 1...2, using: &random))), inserted: "")
        }
        let letters = Array("abcdefgh é😀 ".unicodeScalars)
        let inserted = String(Character(letters[Int.random(in: 0..<letters.count, using: &random)]))
        defer { caret += inserted.unicodeScalars.count }
        return Keystroke(range: caret..<caret, inserted: inserted)
    }

    /// Types `count` keystrokes into `note`'s body, a save every `saveEvery`, each step of
    /// about four keystrokes; returns the text after every step, the first being the start.
    private static func type(_ count: Int, into note: ManagedObject, context: ManagedObjectContext, undo: ContextUndoManager,
                             saveEvery: Int, seed: UInt64) throws -> [String] {
        var random = SeededGenerator(seed: seed)
        var expected = Array(try note.text("body").unicodeScalars)
        var caret = expected.count
        var afterSteps = [String(String.UnicodeScalarView(expected))]
        for offset in 0..<count {
            let startsStep = offset == 0 || Int.random(in: 0..<4, using: &random) == 0
            if startsStep, offset > 0 { afterSteps.append(String(String.UnicodeScalarView(expected))) }
            undo.coalescingInterval = startsStep ? 0 : .infinity
            let key = keystroke(in: expected.count, caret: &caret, random: &random)
            try note.replaceCharacters(in: key.range, with: key.inserted, forKey: "body")
            expected.replaceSubrange(key.range, with: key.inserted.unicodeScalars)
            undo.setActionName("Typing")
            if offset % saveEvery == saveEvery - 1 { try context.save() }
        }
        try context.save()
        afterSteps.append(String(String.UnicodeScalarView(expected)))
        #expect(try note.text("body") == afterSteps.last)
        return afterSteps
    }

    /// Undoes every step, then redoes them, checking the text at each.
    private static func undoAndRedoAll(_ note: ManagedObject, undo: ContextUndoManager, afterSteps: [String], seed: UInt64) throws {
        #expect(undo.undoCount == afterSteps.count - 1, "seed \(seed)")
        var step = afterSteps.count - 1
        while undo.canUndo {
            try undo.undo()
            step -= 1
            let text = try note.text("body")
            try #require(text == afterSteps[max(step, 0)], "seed \(seed): after undoing to step \(step)")
        }
        while undo.canRedo {
            try undo.redo()
            step += 1
            let text = try note.text("body")
            try #require(text == afterSteps[min(step, afterSteps.count - 1)], "seed \(seed): after redoing to step \(step)")
        }
    }

    /// A saved note whose body is "Hello world", with nothing to undo.
    private static func savedNote(in context: ManagedObjectContext) throws -> ManagedObject {
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue(.string("Hello world"), forKey: "body")
        try context.save()
        context.undoManager?.removeAllActions()
        return note
    }

    /// Types 600 keystrokes into a new note, undoes and redoes every step checking each, and
    /// saves: the note and the text after each step.
    private static func typeAndRetrace(in context: ManagedObjectContext, saveEvery: Int, seed: UInt64) throws -> (ManagedObject, [String]) {
        let note = try savedNote(in: context)
        let afterSteps = try type(600, into: note, context: context, undo: context.undoManager!, saveEvery: saveEvery, seed: seed)
        try undoAndRedoAll(note, undo: context.undoManager!, afterSteps: afterSteps, seed: seed)
        try context.save()
        return (note, afterSteps)
    }

    @Test(arguments: [1, 7, 1_000])
    func inMemoryUndoAllThenRedoAllRetracesEveryStep(saveEvery: Int) throws {
        let stack = Stack(model: textNoteModel)
        let (note, afterSteps) = try Self.typeAndRetrace(in: stack.context, saveEvery: saveEvery,
                                                         seed: testSeed("text-undo-random-memory-\(saveEvery)"))
        // The store's string, spliced in place save by save, is the context's.
        #expect(try stack.newContext().existingObject(with: note.objectID).text("body") == afterSteps.last)
    }

    @Test(arguments: [7, 50])
    func documentUndoAllThenRedoAllRetracesEveryStep(saveEvery: Int) throws {
        let stack = try DocumentStack(model: textNoteModel, configuration: manualCompaction())
        let (note, afterSteps) = try Self.typeAndRetrace(in: stack.context, saveEvery: saveEvery,
                                                         seed: testSeed("text-undo-random-document-\(saveEvery)"))
        // The document's string and characters, spliced in place save by save, are the
        // context's, reopened and compacted.
        let uri = note.objectID.uriRepresentation()
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.object(uri).text("body") == afterSteps.last)
        try stack.store.compact()
        try stack.reopen(configuration: manualCompaction())
        #expect(try stack.object(uri).text("body") == afterSteps.last)
    }

    /// Undo and redo in the middle of typing, as a user does, saves between: the text is
    /// the step's every time, and typing after an undo drops the steps undone.
    @Test(arguments: [false, true])
    func undoAndRedoAmidTypingShowEachStepsText(inDocument: Bool) throws {
        let seed = testSeed("text-undo-amid-typing-\(inDocument)")
        let failure = try Self.typeUndoingAndRedoing(inDocument: inDocument, seed: seed, actions: 800)
        #expect(failure == nil, "seed \(seed): \(failure ?? "")")
    }

    /// Types, undoes and redoes at random for `actions`, then undoes and redoes all: what
    /// went wrong first, or nil.
    static func typeUndoingAndRedoing(inDocument: Bool, seed: UInt64, actions: Int) throws -> String? {
        var random = SeededGenerator(seed: seed)
        let memory = inDocument ? nil : Stack(model: textNoteModel)
        let document = inDocument ? try DocumentStack(model: textNoteModel, configuration: manualCompaction()) : nil
        let context = memory?.context ?? document!.context
        let undo = context.undoManager!
        let note = try savedNote(in: context)

        var states = [try note.text("body")]      // the text after each step, the first the start
        var position = 0                          // the step the text shows
        var expected = Array(states[0].unicodeScalars)
        var caret = expected.count
        var startsStep = true
        func check(_ what: String) throws -> String? {
            let text = try note.text("body")
            guard states.indices.contains(position) else {
                return "after \(what): step \(position) of \(states.count - 1)"
            }
            guard text != states[position] else { return nil }
            return "after \(what): \(text) instead of \(states[position])"
        }
        for action in 0..<actions {
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 8, undo.canUndo {
                try undo.undo()
                position -= 1
                if let failure = try check("undo \(action)") { return failure }
                expected = Array(states[position].unicodeScalars)
                caret = min(caret, expected.count)
                startsStep = true
            } else if roll < 15, undo.canRedo {
                try undo.redo()
                position += 1
                if let failure = try check("redo \(action)") { return failure }
                expected = Array(states[position].unicodeScalars)
                caret = min(caret, expected.count)
                startsStep = true
            } else {
                if !startsStep { startsStep = Int.random(in: 0..<4, using: &random) == 0 }
                undo.coalescingInterval = startsStep ? 0 : .infinity
                let key = keystroke(in: expected.count, caret: &caret, random: &random)
                let steps = undo.undoCount
                try note.replaceCharacters(in: key.range, with: key.inserted, forKey: "body")
                expected.replaceSubrange(key.range, with: key.inserted.unicodeScalars)
                undo.setActionName("Typing")
                // A step saved cannot always take the next keystroke (ContextUndoManager's
                // coalescing): the undo manager says whether a step began.
                if !startsStep, undo.undoCount > steps { startsStep = true }
                let text = String(String.UnicodeScalarView(expected))
                if startsStep {
                    states.removeSubrange((position + 1)...)
                    states.append(text)
                    position += 1
                } else {
                    states[position] = text
                }
                startsStep = false
            }
            if action % 13 == 12 { try context.save() }
        }
        try context.save()
        while undo.canUndo {
            try undo.undo()
            position -= 1
            if let failure = try check("undo all") { return failure }
        }
        while undo.canRedo {
            try undo.redo()
            position += 1
            if let failure = try check("redo all") { return failure }
        }
        return position == states.count - 1 ? nil : "redo all ended at step \(position) of \(states.count - 1)"
    }
}
