import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A save of many splices of one text writes the record's string once from its characters
/// (`OverlayPatch.writeTextStrings()`) instead of changing it step by step; whoever reads
/// the record after the save — another context, another connection catching up, a reopen,
/// the verifier, the snapshot after compaction — sees the text as typed, also when the
/// same save changed the record's other values, deleted it and put it back.
@Suite struct TextSaveStrings {
    /// Every save a segment, all history kept, compacted only when asked.
    static func configuration() -> DocumentStore.Configuration { manualCompaction() }

    /// Keystrokes at places a seeded generator picks: insertions of one to three
    /// characters, deletions of one or two, each its own flush (an undo step each, so
    /// nothing joins), mirrored in `expected`.
    static func edit(_ note: ManagedObject, keystrokes: Int, seed: UInt64, undo: ContextUndoManager,
                     expected: inout [Unicode.Scalar]) throws {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = Array("abcdefghij é€😀 ".unicodeScalars)
        for _ in 0..<keystrokes {
            undo.coalescingInterval = 0
            if expected.count > 4, next(3) == 0 {
                let start = next(expected.count - 2)
                let length = 1 + next(2)
                try note.replaceCharacters(in: start..<(start + length), with: "", forKey: "body")
                expected.removeSubrange(start..<(start + length))
            } else {
                let position = next(expected.count + 1)
                let inserted = (0...next(3)).map { _ in alphabet[next(alphabet.count)] }
                var string = String.UnicodeScalarView()
                string.append(contentsOf: inserted)
                try note.replaceCharacters(in: position..<position, with: String(string), forKey: "body")
                expected.insert(contentsOf: inserted, at: position)
            }
            undo.setActionName("Typing")
        }
    }

    static func string(_ scalars: [Unicode.Scalar]) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    static func body(of id: ManagedObjectID, in context: ManagedObjectContext) throws -> String {
        try context.existingObject(with: id).text("body")
    }

    /// The string written from a text's runs (and from scalars) is the text, in every
    /// UTF-8 width: ASCII runs take the byte-a-scalar path, others the general one.
    @Test func stringsWrittenFromRunsAndScalarsAreTheText() throws {
        let samples = ["", "plain ASCII", "é", "café au lait", "€100", "emoji 😀 and 🇫🇷 flags", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"]
        for sample in samples {
            #expect(TextSequence(base: sample).string == sample)
            #expect(String(scalars: Array(sample.unicodeScalars)) == sample)
            #expect(String(scalars: Array(sample.unicodeScalars).dropFirst()) == String(sample.unicodeScalars.dropFirst()))
        }
        // Runs of both kinds in one text, some deleted.
        var sequence = TextSequence(base: "ab")
        for (offset, piece) in ["é", "x", "😀", "yz", "€"].enumerated() {
            _ = sequence.replace(at: sequence.count, length: 0, with: Array(piece.unicodeScalars), peer: 7 + UInt64(offset))
        }
        _ = sequence.replace(at: 1, length: 2, with: [], peer: 20)
        #expect(sequence.string == "a" + "x😀yz€")
    }

    @Test func aSaveOfManySplicesIsReadBackEverywhereAsTyped() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, model: textNoteModel, configuration: Self.configuration())
        let first = try stack.context.insertObject(forEntityName: "Note")
        let second = try stack.context.insertObject(forEntityName: "Note")
        try first.setValue(.string("Hello, world"), forKey: "body")
        try second.setValue(.string("Another note"), forKey: "body")
        try stack.context.save()
        // Another connection to the file, open before the save: it catches up on the segment.
        let other = try DocumentStack.open(url, model: textNoteModel, configuration: Self.configuration())
        #expect(try Self.body(of: first.objectID, in: other.context) == "Hello, world")

        var firstText = Array("Hello, world".unicodeScalars)
        var secondText = Array("Another note".unicodeScalars)
        // One save: far more steps than a string takes in place, on two texts; the first
        // note's tag set between them; the second note deleted and put back by undo.
        try Self.edit(first, keystrokes: 120, seed: 1, undo: stack.undo, expected: &firstText)
        try first.setValue(.string("tagged"), forKey: "tag")
        stack.undo.setActionName("Tag")
        try Self.edit(second, keystrokes: 90, seed: 2, undo: stack.undo, expected: &secondText)
        stack.context.delete(second)
        stack.undo.setActionName("Delete")
        try stack.undo.undo()
        try Self.edit(first, keystrokes: 60, seed: 3, undo: stack.undo, expected: &firstText)
        try Self.edit(second, keystrokes: 40, seed: 4, undo: stack.undo, expected: &secondText)
        try stack.context.save()
        let firstExpected = Self.string(firstText)
        let secondExpected = Self.string(secondText)
        #expect(try first.text("body") == firstExpected)
        #expect(try second.text("body") == secondExpected)

        // A new context of the same store reads the saved rows.
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        #expect(try Self.body(of: first.objectID, in: reader) == firstExpected)
        #expect(try Self.body(of: second.objectID, in: reader) == secondExpected)
        #expect(try reader.existingObject(with: first.objectID).value(forKey: "tag") == .string("tagged"))
        // The other connection catches up on the save.
        _ = try other.store.catchUp()
        let caughtUp = ManagedObjectContext(coordinator: other.coordinator)
        #expect(try Self.body(of: first.objectID, in: caughtUp) == firstExpected)
        #expect(try Self.body(of: second.objectID, in: caughtUp) == secondExpected)
        // And the same save again, the store's text carried on from the string it wrote.
        try Self.edit(first, keystrokes: 30, seed: 5, undo: stack.undo, expected: &firstText)
        try stack.context.save()
        #expect(try Self.body(of: first.objectID, in: ManagedObjectContext(coordinator: stack.coordinator)) == Self.string(firstText))
        try other.store.close()
        try stack.store.close()

        #expect(try DocumentVerifier.verify(url).problems.isEmpty)
        let reopened = try DocumentStack.open(url, model: textNoteModel, configuration: Self.configuration())
        #expect(try Self.body(of: first.objectID, in: reopened.context) == Self.string(firstText))
        #expect(try Self.body(of: second.objectID, in: reopened.context) == secondExpected)
        try reopened.store.compact(retention: .all)
        try reopened.store.close()
        // The snapshot's column holds the text as plain text.
        let rows = try sqlRows(url, "SELECT body FROM Note ORDER BY _pk")
        #expect(rows.map { $0[0] } == [.text(Self.string(firstText)), .text(secondExpected)])
    }
}
