import Foundation
import OutlinerCore
import Strata
import Testing

/// Escape sequences read to their final byte (Examples/Outliner/Core/Keys.swift) and the
/// scroll position a cleared filter gives back.
@Suite("the outliner's keys and scrolling")
struct OutlinerKeysAndScrollTests {
    /// Home, End, PageUp, PageDown, Insert, function keys, modified keys and sequences no
    /// terminal key sends, as xterm and the Linux console send them.
    static let ignoredSequences = [
        "\u{1b}[H", "\u{1b}[F", "\u{1b}OH", "\u{1b}OF", "\u{1b}[1~", "\u{1b}[4~", "\u{1b}[7~", "\u{1b}[8~",
        "\u{1b}[5~", "\u{1b}[6~", "\u{1b}[2~", "\u{1b}OP", "\u{1b}OS", "\u{1b}[15~", "\u{1b}[24~", "\u{1b}[[A",
        "\u{1b}[1;5H", "\u{1b}[5;2~", "\u{1b}[3;5~", "\u{1b}[?25h", "\u{1b}[200~", "\u{1b}[201~",
    ]

    @Test("the decoder reads each sequence to its final byte and gives no key for those it ignores")
    func decoderReadsToTheFinalByte() {
        var decoder = KeyDecoder()
        for sequence in Self.ignoredSequences {
            #expect(decoder.decode(Array((sequence + "a").utf8)) == [.character("a")], "\(Array(sequence.utf8))")
        }
        #expect(decoder.decode(Array("\u{1b}[1;5A\u{1b}OB\u{1b}[3~\u{1b}[Z".utf8)) == [.up, .down, .delete, .shiftTab])
        // Split across reads, a long sequence waits for its final byte.
        #expect(decoder.decode([0x1b, 0x5b, 0x31, 0x35]) == [])
        #expect(decoder.decode([0x3b, 0x32]) == [])
        #expect(decoder.decode([0x7e, 0x62]) == [.character("b")])
    }

    @Test("Home, End, PageUp, PageDown, function keys and unknown sequences type nothing into a title")
    func ignoredKeysTypeNothing() throws {
        let scratch = try Scratch()
        let editor = try OutlineEditor(url: scratch.document, coalescing: 3600)
        editor.run("!")
        for sequence in Self.ignoredSequences { editor.run(sequence) }
        #expect(editor.outlineText().hasPrefix("Welcome to the Strata outliner!\n"), "\(editor.outlineText().prefix(60))")
        #expect(editor.undo.undoGroups.map(\.actionName) == ["Typing"])
        // Ignored keys do nothing at all: the title is still being typed.
        let screen = editor.run("")
        #expect(screen.lines[1] == "[ ] Welcome to the Strata outliner!_")
        editor.quit()
    }

    @Test("clearing a filter brings back the outline's scroll position and selection")
    func clearedFilterRestoresTheScroll() throws {
        let scratch = try Scratch()
        let editor = try OutlineEditor(url: scratch.document, coalescing: 3600)
        // Four rows on screen: six steps down scroll the outline by three.
        let before = editor.run(String(repeating: Keys.down, count: 6), height: 6)
        #expect(Array(before.lines[1...4]) == [
            "  [ ] Ctrl-Z and Ctrl-Y undo and redo, even after quitting", "[ ] Groceries", "  [x] Bread", "  [ ] Coffee",
        ])
        #expect(before.highlighted == 4)
        let filtered = editor.run("/done == YES" + Keys.enter + Keys.down, height: 6)
        #expect(filtered.lines[1...2] == ["[x] Type to edit a title; Space toggles done", "[x] Bread"])
        let cleared = editor.run("/" + Keys.enter, height: 6)
        #expect(cleared.lines[0] == "Outline")
        #expect(Array(cleared.lines[1...4]) == Array(before.lines[1...4]), "\(cleared.text)")
        #expect(cleared.highlighted == before.highlighted)
        editor.quit()
    }
}
