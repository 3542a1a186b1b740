import Foundation
import Strata
import Testing

/// Convergence of a text edited by several processes on one document file, as a seeded
/// property test (issue 35, item 7; docs/TEXT.md, "Merging"): 2–8 writers, in batches of 1–4
/// `strata splice`/`undo`/`redo` processes started at once, so their saves race through the
/// writer lock and each splices the text as it read it, which another's save may have
/// changed meanwhile. The properties are ``TextConvergenceHistory``'s, the replay a
/// `strata-log replay` of the whole log.
///
/// Processes racing on one file share one undo history, so what each removed cannot be told
/// apart: a batch is one step, read before and after. A batch holds at most one process
/// that removes characters (a delete, replacement, undo or redo): a character gone after a
/// batch of inserts only is lost. Its inserts keep 6 characters clear of the end (the most
/// one undo removes), so a racing removal never leaves them past the end.
///
/// One case of 24 batches by default (about 15 s in a debug build); `STRATA_TEXT_CASES=N`
/// runs N seeds, `STRATA_SEED=S` replays one.
@Suite(.serialized) struct TextSpliceProperty {
    static let batches = 24

    @Test func processesRacingOnOneFileConverge() throws {
        for seed in textPropertySeeds("TextProperty.processes") { try run(seed: seed) }
    }

    private func run(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let writers = Int.random(in: 2...8, using: &random)
        let sandbox = try TemporaryDirectory()
        var history = TextConvergenceHistory()
        let initial = history.freshRun(6)
        let (document, note) = try TextSpliceCommands.note(sandbox, title: initial)
        history.record(replica: 0, kind: "initial", typed: [initial], before: "", after: initial, removes: false)
        // Groups above the note's insert that can surely be undone, and undone groups that
        // can surely be redone (lower bounds: racing processes' order is unknown), so that
        // no undo ever reaches the insert of the note itself.
        var undoable = 0, redoable = 0
        var recentPlace: Int?
        var failures: [String] = []
        for batch in 0..<Self.batches {
            let before = try TextSpliceCommands.title(document, note)
            let length = before.unicodeScalars.count
            let size = Int.random(in: 1...min(4, writers), using: &random)
            let members = Array((0..<writers).shuffled(using: &random).prefix(size))
            var edits: [RandomTextEdit] = []
            for _ in members {
                let edit = RandomTextEdit.random(length: length, recentPlace: recentPlace, canUndo: undoable > 0, canRedo: redoable > 0,
                                                 removes: !edits.contains { $0.removes }, history: &history, using: &random)
                edits.append(edit)
                recentPlace = edit.place ?? recentPlace
            }
            // Beside a removal, inserts keep clear of the end.
            if edits.count > 1, edits.contains(where: \.removes) {
                edits = edits.map { edit in
                    guard case .insert(let at, let run) = edit, at > length - 6 else { return edit }
                    return .insert(at: max(0, length - 6), run: run)
                }
            }
            let results = try CLI.runAll("strata", edits.map { TextPropertyCommands.arguments($0, document, note) })
            var undid = false, redid = false
            for (edit, result) in zip(edits, results) where result.status != 0 {
                if (edit == .undo || edit == .redo), TextPropertyCommands.foundNothing(result) { continue }
                failures.append("batch \(batch): \(edit) failed: \(result.stderr)")
            }
            for (edit, result) in zip(edits, results) where result.status == 0 {
                if edit == .undo { undid = true }
                if edit == .redo { redid = true }
            }
            let typing = edits.filter { $0.splice != nil }.count
            undoable = max(0, undoable + typing - (edits.contains(.undo) ? 1 : 0) + (redid ? 1 : 0))
            redoable = typing > 0 ? 0 : max(0, redoable + (undid ? 1 : 0) - (edits.contains(.redo) ? 1 : 0))
            let after = try TextSpliceCommands.title(document, note)
            history.record(replica: batch, kind: size == 1 ? edits[0].kind : "batch", typed: edits.flatMap(\.typed),
                           before: before, after: after, removes: edits.contains { $0.removes },
                           note: edits.map(\.description).joined(separator: " | "),
                           expected: size == 1 ? edits[0].applied(to: before) : nil)
        }
        #expect(failures.isEmpty, "seed \(seed): \(failures)")
        let final = try TextSpliceCommands.title(document, note)
        let replayed = try TextPropertyCommands.replayedTitle(document, note, in: sandbox)
        let problems = history.problems(finalTexts: [final], replayed: [("strata-log replay", replayed)])
        print("TextProperty.processes seed \(seed): \(writers) writers, \(history.summary(finalText: final))")
        #expect(problems.isEmpty, "seed \(seed), \(writers) writers:\n\(problems.joined(separator: "\n"))\nsteps:\n\(history.steps.map(\.description).joined(separator: "\n"))")
    }
}
