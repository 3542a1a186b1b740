import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Convergence of a text edited by 2–8 stores on one PostgreSQL document, as a seeded
/// property test (issue 35, item 7; docs/TEXT.md, "Merging"): each step either edits one
/// stack's title — inserts at the place another stack just used, deletes, replacements,
/// undo and redo through `context.undoManager` — saving it at once or leaving it pending,
/// or saves a stack's pending edits, or catches a stack up with the server, in a seeded
/// random order. A stack edits the text as it last saw it, so edits are concurrent
/// whenever it has not caught up. The properties are ``TextConvergenceHistory``'s; the
/// replays are a store opened afterwards, which applies every segment from the start, and
/// one opened after the server compacted, which starts from the snapshot.
///
/// A stack only catches up with no edit pending (merging remote edits into unsaved ones
/// is not built yet, docs/TEXT.md), and each step is read before and after in its own
/// context, so a splice must do exactly what it asked.
///
/// One case of 120 steps by default (a few seconds); `STRATA_TEXT_CASES=N` runs N seeds,
/// `STRATA_SEED=S` replays one.
@Suite("PostgreSQL document: text convergence property", .serialized)
struct PostgresTextPropertyTests {
    static let steps = 120

    @Test func stacksEditingApartAndCatchingUpInRandomOrdersConverge() throws {
        for seed in textPropertySeeds("TextProperty.postgres") { try run(seed: seed) }
    }

    private func text(_ stack: PostgresStack, _ id: ManagedObjectID) throws -> String {
        if case .string(let value) = try stack.context.existingObject(with: id).value(forKey: "title") { return value }
        return ""
    }

    private func run(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...8, using: &random)
        let name = uniqueDocumentName("text-property")
        var history = TextConvergenceHistory()
        let initial = history.freshRun(6)
        let first = try PostgresStack(name, listens: false, model: PostgresTextTests.model)
        defer { first.close() }
        let note = try first.context.insertObject(forEntityName: "Note")
        try note.setValue(.string(initial), forKey: "title")
        try first.context.save()
        first.context.undoManager?.removeAllActions()   // no undo reaches the note's insert
        history.record(replica: 0, kind: "initial", typed: [initial], before: "", after: initial, removes: false)
        let id = note.objectID
        let others = try (1..<count).map { _ in
            try PostgresStack(name, create: false, listens: false, model: PostgresTextTests.model)
        }
        defer { others.forEach { $0.close() } }
        let stacks = [first] + others
        var recentPlace: Int?
        var order: [String] = []
        // Stacks with an edit not saved yet: not `context.hasChanges`, which an unsaved
        // undo makes false while its splices are still logged (TextUndoThenRefreshTests).
        var unsaved = Set<Int>()
        do {
        for _ in 0..<Self.steps {
            let index = Int.random(in: 0..<count, using: &random)
            let stack = stacks[index], context = stack.context
            let roll = Int.random(in: 0..<10, using: &random)
            if roll < 2 {
                order.append("save \(index)")
                try context.save()
                unsaved.remove(index)
                continue
            }
            if roll < 4 {
                guard !unsaved.contains(index) else { continue }
                order.append("catch up \(index)")
                _ = try stack.store.catchUp()
                context.refresh(try context.existingObject(with: id), mergeChanges: false)
                continue
            }
            let undo = try #require(context.undoManager)
            let before = try text(stack, id)
            // Undo and redo with or without unsaved edits: an undo of unsaved splices leaves
            // them logged, and a refresh applies them again (TextUndoThenRefreshTests; seeds
            // 2195335193–5 failed here before that).
            let edit = RandomTextEdit.random(length: before.unicodeScalars.count, recentPlace: recentPlace, canUndo: undo.canUndo,
                                             canRedo: undo.canRedo, history: &history, using: &random)
            recentPlace = edit.place ?? recentPlace
            switch edit {
            case .undo: try undo.undo()
            case .redo: try undo.redo()
            default:
                let splice = edit.splice!
                try context.existingObject(with: id).replaceCharacters(in: splice.range, with: splice.text, forKey: "title")
            }
            let after = try text(stack, id)
            let saves = Bool.random(using: &random)
            order.append("\(edit) on \(index)\(saves ? " saved" : "")")
            history.record(replica: index, kind: edit.kind, typed: edit.typed, before: before, after: after, removes: edit.removes,
                           note: "\(edit)", expected: edit.applied(to: before))
            if saves { try context.save() } else { unsaved.insert(index) }
        }
        for stack in stacks { try stack.context.save() }
        } catch {
            Issue.record("seed \(seed), \(count) stacks: \(error)\norder: \(order.joined(separator: ", "))\nsteps:\n\(history.steps.map(\.description).joined(separator: "\n"))")
            return
        }
        let finals = try stacks.map { try PostgresTextTests.title($0, id) }
        // A store opened now applies every segment from the start; one opened after the
        // server compacted starts from the snapshot and its characters.
        let replaying = try PostgresStack(name, create: false, listens: false, model: PostgresTextTests.model)
        defer { replaying.close() }
        let replayed = try text(replaying, id)
        _ = try first.store.compact()
        let fromSnapshot = try PostgresStack(name, create: false, listens: false, model: PostgresTextTests.model)
        defer { fromSnapshot.close() }
        let problems = history.problems(finalTexts: finals, replayed: [
            ("a store replaying the whole log", replayed), ("a store opened from the compacted snapshot", try text(fromSnapshot, id)),
        ])
        print("TextProperty.postgres seed \(seed): \(count) stacks, \(history.summary(finalText: finals[0]))")
        #expect(problems.isEmpty, "seed \(seed), \(count) stacks:\n\(problems.joined(separator: "\n"))\norder: \(order.joined(separator: ", "))\nsteps:\n\(history.steps.map(\.description).joined(separator: "\n"))")
    }
}
