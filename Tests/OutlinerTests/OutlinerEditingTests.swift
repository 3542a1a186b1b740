import Foundation
import OutlinerCore
import Strata
import Testing

/// Terminal bytes for the keys the tests press.
enum Keys {
    static let up = "\u{1b}[A", down = "\u{1b}[B", left = "\u{1b}[D", right = "\u{1b}[C"
    static let enter = "\r", tab = "\t", shiftTab = "\u{1b}[Z", delete = "\u{1b}[3~", backspace = "\u{7f}"
    static let undo = "\u{1a}", redo = "\u{19}", escape = "\u{1b}"
}

/// A temporary directory removed at the end of the test.
final class Scratch {
    let directory: URL
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("outliner-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    var document: URL { directory.appendingPathComponent("outline.strata") }
    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The example outline a new document starts with, as `outlineText()` prints it.
let exampleOutline = """
    Welcome to the Strata outliner
      Arrows move, Enter adds, Tab and Shift-Tab indent and outdent
      [x] Type to edit a title; Space toggles done
      Ctrl-Z and Ctrl-Y undo and redo, even after quitting
    Groceries
      [x] Bread
      Coffee
    / filters (try: done == YES), h shows the history, q quits
    """

@Suite("the outliner driven by keys")
struct OutlinerEditingTests {
    /// An editor whose keystrokes all coalesce (the tests press keys far quicker than an hour).
    func open(_ url: URL) throws -> OutlineEditor {
        try OutlineEditor(url: url, coalescing: 3600)
    }

    @Test func aNewDocumentStartsWithTheExampleOutlineAndNothingToUndo() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        #expect(editor.outlineText() == exampleOutline)
        #expect(!editor.undo.canUndo)
        let screen = editor.run("")
        #expect(screen.lines[1] == "[ ] Welcome to the Strata outliner")
        #expect(screen.highlighted == 1)
        #expect(screen.status == "Undo — | Redo — | 8 items | saved")
        editor.quit()
    }

    @Test func enterAddsASiblingAndTypingAWordIsOneUndoStep() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        // Down to "Groceries"' child "Bread", add a sibling after it and type its title.
        editor.run(Keys.down + Keys.down + Keys.down + Keys.down + Keys.down)
        #expect(editor.selected?.objectID != nil)
        var screen = editor.run(Keys.enter + "Milk")
        #expect(editor.outlineText().contains("  [x] Bread\n  Milk\n  Coffee"))
        #expect(screen.status == "Undo Typing | Redo — | 9 items | edited")
        #expect(editor.undo.undoGroups.map(\.actionName) == ["New Item", "Typing"])
        // One undo removes the whole word, the next the item; the selection comes back.
        screen = editor.run(Keys.undo)
        #expect(editor.outlineText().contains("  [x] Bread\n  \n  Coffee"))
        #expect(screen.status.hasPrefix("Undo New Item | Redo Typing | 9 items"))
        screen = editor.run(Keys.undo)
        #expect(editor.outlineText() == exampleOutline)
        #expect(screen.lines[screen.highlighted ?? 0] == "  [x] Bread")
        screen = editor.run(Keys.redo + Keys.redo)
        #expect(editor.outlineText().contains("  [x] Bread\n  Milk\n  Coffee"))
        #expect(screen.lines[screen.highlighted ?? 0] == "  [ ] Milk")
        editor.quit()
    }

    @Test func tabIndentsAndShiftTabOutdentsEachOneUndoGroup() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        editor.run(Keys.down + Keys.down)                      // "Type to edit…"
        editor.run(Keys.tab)                                   // under "Arrows move…"
        #expect(editor.outlineText().hasPrefix("""
            Welcome to the Strata outliner
              Arrows move, Enter adds, Tab and Shift-Tab indent and outdent
                [x] Type to edit a title; Space toggles done
              Ctrl-Z
            """))
        #expect(editor.undo.undoActionName == "Indent")
        editor.run(Keys.shiftTab + Keys.shiftTab)              // back, then to the top level, after its parent
        #expect(editor.outlineText().hasPrefix("""
            Welcome to the Strata outliner
              Arrows move, Enter adds, Tab and Shift-Tab indent and outdent
              Ctrl-Z and Ctrl-Y undo and redo, even after quitting
            [x] Type to edit a title; Space toggles done
            Groceries
            """))
        #expect(editor.undo.undoGroups.map(\.actionName) == ["Indent", "Outdent", "Outdent"])
        // The first item has nothing above it to indent under: a message, no change.
        let screen = editor.run(Keys.up + Keys.up + Keys.up + Keys.tab)
        #expect(screen.status.hasSuffix("nothing above to indent under"))
        #expect(editor.undo.undoCount == 3)
        editor.run(Keys.undo + Keys.undo + Keys.undo)
        #expect(editor.outlineText() == exampleOutline)
        editor.quit()
    }

    @Test func spaceTogglesDoneAndDeleteRemovesASubtree() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        editor.run(" ")
        #expect(editor.outlineText().hasPrefix("[x] Welcome"))
        #expect(editor.undo.undoActionName == "Mark Done")
        var screen = editor.run(Keys.delete)                   // the whole first subtree
        #expect(editor.outlineText() == """
            Groceries
              [x] Bread
              Coffee
            / filters (try: done == YES), h shows the history, q quits
            """)
        #expect(screen.status == "Undo Delete Item | Redo — | 4 items | edited")
        #expect(screen.lines[screen.highlighted ?? 0] == "[ ] Groceries")
        screen = editor.run(Keys.undo)
        #expect(editor.outlineText().hasPrefix("[x] Welcome to the Strata outliner\n  Arrows move"))
        #expect(screen.status.contains("8 items"))
        #expect(screen.lines[screen.highlighted ?? 0] == "[x] Welcome to the Strata outliner")
        editor.quit()
    }

    @Test func typingBackspaceEditsTheTitleAndSpaceIsTextWhileTyping() throws {
        let scratch = try Scratch()
        let editor = try open(scratch.document)
        editor.run(Keys.down + Keys.down + Keys.down + Keys.down + Keys.down + Keys.down)   // "Coffee"
        let screen = editor.run(", beans" + Keys.backspace + Keys.backspace + "ns!")
        #expect(screen.lines[screen.highlighted ?? 0] == "  [ ] Coffee, beans!_")
        #expect(editor.undo.undoGroups.map(\.actionName) == ["Typing"])
        editor.run(Keys.down + " ")                            // typing ended: Space toggles again
        #expect(editor.outlineText().hasSuffix("[x] / filters (try: done == YES), h shows the history, q quits"))
        editor.quit()
    }
}
