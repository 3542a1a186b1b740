import Foundation
import OutlinerCore
import Strata
import Testing

@Suite("the outliner's document: saves, reopening, filters, history, other processes")
struct OutlinerDocumentTests {
    func open(_ url: URL) throws -> OutlineEditor {
        try OutlineEditor(url: url, coalescing: 3600)
    }

    @Test func quittingSavesAndUndoAfterReopeningRevertsThePreviousRunsEdits() throws {
        let scratch = try Scratch()
        var editor = try open(scratch.document)
        editor.run(Keys.enter + "First" + Keys.enter + "Second")
        #expect(editor.hasUnsavedChanges)
        editor.run("\u{1b}[B" + "q")                           // an arrow ends typing, q quits
        #expect(editor.hasQuit)
        let saved = exampleOutline.replacingOccurrences(of: "Welcome to the Strata outliner\n", with: "Welcome to the Strata outliner\nFirst\nSecond\n")
        // Nothing moved under the items: the new ones are siblings after the first.
        editor = try open(scratch.document)
        #expect(editor.outlineText().hasPrefix("Welcome to the Strata outliner\n  Arrows move"))
        #expect(editor.outlineText().contains("  Ctrl-Z and Ctrl-Y undo and redo, even after quitting\nFirst\nSecond\nGroceries"))
        #expect(!editor.hasUnsavedChanges)
        #expect(editor.undo.undoGroups.map(\.actionName) == ["New Item", "Typing", "New Item", "Typing"])
        var screen = editor.run("")
        #expect(screen.status == "Undo Typing | Redo — | 10 items | saved")
        // Undo the previous run's edits, one group at a time.
        screen = editor.run(Keys.undo + Keys.undo)
        #expect(editor.outlineText().contains("quitting\nFirst\nGroceries"))
        #expect(screen.status == "Undo Typing | Redo New Item | 9 items | edited")
        editor.run(Keys.undo + Keys.undo + "q")
        #expect(!saved.isEmpty)
        // The undos were saved too: the third run sees the example and can redo.
        editor = try open(scratch.document)
        #expect(editor.outlineText() == exampleOutline)
        #expect(editor.undo.redoGroups.count == 4)
        editor.run(Keys.redo)
        #expect(editor.outlineText().contains("quitting\n\nGroceries"))
        editor.quit()
    }

    /// The selection an undo group recorded is saved with it: after reopening, undo selects
    /// the item the command had selected before it, redo the one after it.
    @Test func undoAfterReopeningSelectsWhatTheCommandHadSelected() throws {
        let scratch = try Scratch()
        var editor = try open(scratch.document)
        editor.run(Keys.enter + "First" + Keys.enter + "Second")
        editor.run("\u{1b}[B" + "q")
        editor = try open(scratch.document)
        func selectedTitle() throws -> PropertyValue? { try editor.selected?.value(forKey: "title") }
        #expect(try selectedTitle() == .string("Welcome to the Strata outliner"))
        // Undoing "Second"'s typing selects that item (it was selected when typing began).
        editor.run(Keys.undo)
        #expect(try selectedTitle() == .string(""))
        // Undoing its creation selects "First", selected when Enter made it.
        editor.run(Keys.undo)
        #expect(try selectedTitle() == .string("First"))
        // Redo selects what each command left selected.
        editor.run(Keys.redo)
        #expect(try selectedTitle() == .string(""))
        editor.run(Keys.redo)
        #expect(try selectedTitle() == .string("Second"))
        editor.quit()
    }

    @Test func theAutosaveWaitsForAPause() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        editor.autosaveDelay = 5
        editor.run(" ")
        let edited = Date()
        editor.tick(now: edited)                               // no pause yet
        #expect(editor.hasUnsavedChanges)
        editor.tick(now: edited.addingTimeInterval(10))
        #expect(!editor.hasUnsavedChanges)
        #expect(editor.run("").status.hasSuffix("| saved"))
        editor.quit()
    }

    @Test func slashFiltersWithAPredicateAndABadOneIsReportedOnTheStatusLine() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        var screen = editor.run("/done == YES" + Keys.enter)
        #expect(screen.lines[0] == "Outline — filter: done == YES")
        #expect(Array(screen.lines[1...2]) == ["[x] Type to edit a title; Space toggles done", "[x] Bread"])
        #expect(screen.lines[3] == "")
        #expect(screen.status.contains("| 2 items |"))
        // The filtered list follows edits: un-doing Bread removes it from the list.
        screen = editor.run(Keys.down + " ")
        #expect(screen.status.contains("| 1 item |"))
        editor.run(Keys.undo)
        // A predicate that does not parse stays at the prompt with the parser's message.
        screen = editor.run("/title CONTAINS[c" + Keys.enter)
        #expect(screen.status.hasPrefix("/title CONTAINS[c  — bad filter: "))
        screen = editor.run(Keys.escape)
        #expect(screen.lines[0] == "Outline — filter: done == YES")
        // An attribute the model lacks.
        screen = editor.run("/colour == 'red'" + Keys.enter)
        #expect(screen.status.contains("bad filter: "), "\(screen.status)")
        #expect(screen.status.contains("colour"), "\(screen.status)")
        // An empty filter shows the whole outline again.
        screen = editor.run(Keys.escape + "/" + Keys.enter)
        #expect(screen.lines[0] == "Outline")
        #expect(screen.status.contains("| 8 items |"))
        editor.quit()
    }

    @Test func historyListsTheSavesAndOpensAnEarlierOneReadOnly() throws {
        let scratch = try Scratch()
        var editor = try open(scratch.document)
        editor.run(" ")
        editor.save()
        editor.run(Keys.down + Keys.delete + "q")
        editor = try open(scratch.document)
        var screen = editor.run("h")
        #expect(screen.lines[0].hasPrefix("History"))
        #expect(editor.history.map(\.actions) == [["Delete Item"], ["Mark Done"], ["(unnamed)"]])
        #expect(screen.lines[1].hasPrefix("#3  "))
        #expect(screen.lines[1].hasSuffix("  Delete Item"))
        #expect(screen.highlighted == 1)
        // The save before the delete: the first item done, its children still there.
        screen = editor.run(Keys.down + Keys.enter)
        #expect(screen.lines[0] == "Read-only: the outline after save #2 — Esc returns")
        #expect(Array(screen.lines[1...3]) == [
            "[x] Welcome to the Strata outliner",
            "  [ ] Arrows move, Enter adds, Tab and Shift-Tab indent and outdent",
            "  [x] Type to edit a title; Space toggles done",
        ])
        // Keys change nothing there; Esc goes back to the list, and again to the outline.
        editor.run(" " + Keys.delete)
        screen = editor.run(Keys.escape)
        #expect(screen.highlighted == 2)
        screen = editor.run(Keys.escape)
        #expect(screen.lines[0] == "Outline")
        #expect(!editor.outlineText().contains("Arrows move"))
        editor.quit()
    }

    @Test func anotherProcessesSaveShowsUpAfterAPoll() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        editor.save()
        #expect(editor.run("").lines[1] == "[ ] Welcome to the Strata outliner")
        // A second editor (as a second process would) renames the first item and saves.
        let other = try open(scratch.document)
        other.run("!" + Keys.down + Keys.down + Keys.down + Keys.tab + "q")
        editor.pollForRemoteChanges()
        let screen = editor.run("")
        #expect(screen.lines[1] == "[ ] Welcome to the Strata outliner!")
        #expect(screen.lines[4] == "    [ ] Ctrl-Z and Ctrl-Y undo and redo, even after quitting")
        // Their edits are not on this editor's undo stack.
        #expect(!editor.undo.canUndo)
        editor.quit()
    }

    @Test func theKeyDecoderReadsSequencesSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1b, 0x5b]) == [])
        #expect(decoder.decode([0x5a, 0x61, 0x1a, 0x19, 0x20, 0x0d, 0x09, 0x7f]) == [.shiftTab, .character("a"), .undo, .redo, .space, .enter, .tab, .backspace])
        #expect(decoder.decode([0x1b, 0x5b, 0x33]) == [])
        #expect(decoder.decode([0x7e, 0xc3]) == [.delete])
        #expect(decoder.decode([0xa9, 0x1b]) == [.character("é"), .escape])
    }
}
