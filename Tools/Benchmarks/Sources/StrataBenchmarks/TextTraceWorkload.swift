import Foundation
import Strata

/// W15 text editing: a real editing trace (``EditingTrace``) applied keystroke by keystroke
/// into one note's text attribute (docs/TEXT.md) in a document, as the Outliner types:
///
/// - each keystroke is one `replaceCharacters` and one flush, named "Typing";
/// - keystrokes join undo steps through the undo manager's coalescing, broken where
///   ``TypingSteps`` says a pause would be (about a word per step);
/// - a save every 1,000 keystrokes, and one at the end;
/// - then undo all and redo all (in memory, not saved), checking the text after each.
///
/// Then the document is closed with its full history (automatic compaction off, so every
/// save is a segment in the log), its bytes measured, reopened and its text read; compacted
/// keeping all history, measured, reopened and read again.
///
/// The same run with the text as a plain string attribute, set whole with `setValue` on
/// every keystroke, is the whole-string peer (`wholeString`), on a prefix of the trace: its
/// log and undo hold a copy of the whole string per keystroke.
///
/// Figures, per trace (`ap`: automerge-paper, `sb`: seph-blog1; `<key>_string_…` for the
/// whole-string peer): `apply_s`, `keystrokes_per_s`, `save_s` (the saves within apply),
/// `undo_redo_s`, `undo_steps`, `bytes`, `compacted_bytes`, `bytes_per_keystroke`,
/// `open_read_ms` (compacted), `unfolded_open_read_ms`, `peak_mib`, `keystrokes`.
struct TextTraceWorkload {
    var trace: EditingTrace
    var key: String
    var keystrokes: Int
    /// True: a text attribute edited by splices. False: a plain string set whole.
    var isText: Bool
    var document: URL
    var model = TextTraceWorkload.makeModel()

    static let keystrokesPerSave = 1_000

    /// One entity, Note, with the body as a text and the same as a plain string.
    static func makeModel() -> ManagedObjectModel {
        var body = AttributeDescription("body", .string)
        body.isText = true
        do {
            return try ManagedObjectModel(entities: [EntityDescription("Note", attributes: [body, AttributeDescription("plain", .string)])],
                                          versionIdentifier: "bench-text-1")
        } catch {
            preconditionFailure("the W15 model is invalid: \(error)")
        }
    }

    var attribute: String { isText ? "body" : "plain" }

    /// Every save a segment in the log until the explicit compaction: the bytes before it
    /// are the whole history as typed.
    static func configuration() -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .full
        configuration.retention = .all
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        return configuration
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func runText(_ env: BenchEnvironment, trace index: Int) throws -> [String: Double] {
        try run(env, trace: index, isText: true, keystrokes: env.tier.textKeystrokes)
    }

    static func runWholeString(_ env: BenchEnvironment, trace index: Int) throws -> [String: Double] {
        try run(env, trace: index, isText: false, keystrokes: env.tier.stringKeystrokes)
    }

    private static func run(_ env: BenchEnvironment, trace index: Int, isText: Bool, keystrokes: Int) throws -> [String: Double] {
        let (name, key) = EditingTrace.names[index]
        let trace = try EditingTrace.load(name)
        let count = trace.prefix(keystrokes).count
        let workload = TextTraceWorkload(
            trace: trace, key: isText ? key : "\(key)_string", keystrokes: count, isText: isText,
            document: env.file("w15-\(key)-\(isText ? "text" : "string").strata"))
        ProcessMemory.resetPeak()
        return try workload.run()
    }

    func run() throws -> [String: Double] {
        // The whole trace must end exactly as recorded (its endContent); a prefix as its
        // patches applied to an array of scalars.
        let expected = trace.expectedText(after: keystrokes)
        var figures: [String: Double] = [:]
        try edit(expected: expected, figures: &figures)
        figures["bytes"] = Double(documentBytes())
        figures["unfolded_open_read_ms"] = try openAndRead(expected: expected) * 1000
        let compaction = try DocumentStore(openingAt: document, model: model, configuration: Self.configuration())
        let (_, compactSeconds) = try Clock.measure { try compaction.compact(retention: .all) }
        try compaction.close()
        figures["compact_s"] = compactSeconds
        figures["compacted_bytes"] = Double(documentBytes())
        figures["open_read_ms"] = try openAndRead(expected: expected) * 1000
        figures["bytes_per_keystroke"] = figures["bytes", default: 0] / Double(keystrokes)
        figures["keystrokes"] = Double(keystrokes)
        figures["peak_mib"] = peakMemoryMiB()
        note(String(format: "W15 %@ (%@, %d keystrokes): apply %.2f s, undo+redo %.2f s over %.0f steps, %.0f → %.0f bytes, open+read %.2f ms",
                    trace.name, isText ? "text" : "whole string", keystrokes, figures["apply_s"] ?? 0, figures["undo_redo_s"] ?? 0,
                    figures["undo_steps"] ?? 0, figures["bytes"] ?? 0, figures["compacted_bytes"] ?? 0, figures["open_read_ms"] ?? 0))
        return Dictionary(uniqueKeysWithValues: figures.map { ("W15.\(key)_\($0.key)", $0.value) })
    }

    /// Creates the document with the note, types the trace, then undoes and redoes it all.
    private func edit(expected: String, figures: inout [String: Double]) throws {
        let store = try DocumentStore(creatingAt: document, model: model, overwrite: true, configuration: Self.configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let undo = ContextUndoManager()
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: undo)
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue(.string(trace.startContent), forKey: attribute)
        try context.save()
        undo.removeAllActions()

        var steps = TypingSteps()
        // The whole-string editor's own buffer: scalars, so a position costs nothing to
        // find; building the String from it each keystroke is part of that way's cost.
        var buffer: [Unicode.Scalar] = isText ? [] : Array(trace.startContent.unicodeScalars)
        var saveSeconds = 0.0
        let patches = trace.prefix(keystrokes)
        let (_, applySeconds) = try Clock.measure {
            for (offset, patch) in patches.enumerated() {
                // Only what the Outliner does per keystroke: the interval decides whether
                // this flush joins the step before it.
                undo.coalescingInterval = steps.startsStep(patch) ? 0 : .infinity
                let start = Int(patch.position)
                let range = start..<(start + Int(patch.deleted))
                if isText {
                    try note.replaceCharacters(in: range, with: patch.inserted, forKey: attribute)
                } else {
                    buffer.replaceSubrange(range, with: patch.inserted.unicodeScalars)
                    var scalars = String.UnicodeScalarView()
                    scalars.append(contentsOf: buffer)
                    try note.setValue(.string(String(scalars)), forKey: attribute)
                }
                undo.setActionName("Typing")   // flushes: one flush per keystroke
                if offset % Self.keystrokesPerSave == Self.keystrokesPerSave - 1 {
                    let (_, seconds) = try Clock.measure { try context.save() }
                    saveSeconds += seconds
                }
            }
            let (_, seconds) = try Clock.measure { try context.save() }
            saveSeconds += seconds
        }
        try check(note, equals: expected, "after applying")
        figures["apply_s"] = applySeconds
        figures["keystrokes_per_s"] = Double(keystrokes) / applySeconds
        figures["save_s"] = saveSeconds
        figures["undo_steps"] = Double(undo.undoCount)

        let start = Clock.now
        while undo.canUndo { try undo.undo() }
        let undoSeconds = Clock.seconds(since: start)
        // A wrong text after undo or redo is a library bug, reported loudly (stderr and the
        // `undo_wrong` / `redo_wrong` figures: scalars off) without dropping the other figures;
        // a wrong text after applying, or in the reopened document, fails the unit.
        figures["undo_wrong"] = try mismatch(note, expected: trace.startContent, "after undo all")
        let redoStart = Clock.now
        while undo.canRedo { try undo.redo() }
        let redoSeconds = Clock.seconds(since: redoStart)
        figures["redo_wrong"] = try mismatch(note, expected: expected, "after redo all")
        figures["undo_s"] = undoSeconds
        figures["redo_s"] = redoSeconds
        figures["undo_redo_s"] = undoSeconds + redoSeconds
        // The undo and redo are not saved: the document keeps the history as typed.
        context.rollback()
        try store.close()
    }

    /// Opens the document, fetches the note and reads its text: the seconds it took.
    private func openAndRead(expected: String) throws -> Double {
        let start = Clock.now
        let store = try DocumentStore(openingAt: document, model: model, configuration: Self.configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        guard let note = try context.fetch(FetchRequest(entityName: "Note")).first else {
            throw Failure(description: "W15 \(trace.name): the reopened document has no note")
        }
        let text = try Self.string(note.value(forKey: attribute))
        let seconds = Clock.seconds(since: start)
        guard text == expected else {
            throw Failure(description: "W15 \(trace.name): the reopened text differs (\(text.unicodeScalars.count) scalars, expected \(expected.unicodeScalars.count))")
        }
        try store.close()
        return seconds
    }

    /// 0 when the note's text is `expected`; else how many scalars it is off, said on stderr.
    private func mismatch(_ note: ManagedObject, expected: String, _ when: String) throws -> Double {
        let text = try Self.string(note.value(forKey: attribute))
        guard text != expected else { return 0 }
        let off = abs(text.unicodeScalars.count - expected.unicodeScalars.count)
        StrataBenchmarks.note("W15 CHECK FAILED: \(trace.name) (\(isText ? "text" : "whole string")): the text \(when) differs "
              + "(\(text.unicodeScalars.count) scalars, expected \(expected.unicodeScalars.count))")
        return Double(max(off, 1))
    }

    private func check(_ note: ManagedObject, equals expected: String, _ when: String) throws {
        let text = try Self.string(note.value(forKey: attribute))
        guard text == expected else {
            throw Failure(description: "W15 \(trace.name) (\(isText ? "text" : "whole string")): the text \(when) differs "
                + "(\(text.unicodeScalars.count) scalars, expected \(expected.unicodeScalars.count))")
        }
    }

    private static func string(_ value: PropertyValue) throws -> String {
        switch value {
        case .string(let string): return string
        case .null: return ""
        default: throw Failure(description: "W15: the note's text is not a string (\(value))")
        }
    }

    /// The document's bytes on disk: the file, and its WAL if one is left.
    private func documentBytes() -> Int {
        fileSize(document) + fileSize(URL(fileURLWithPath: document.path + "-wal"))
    }
}
