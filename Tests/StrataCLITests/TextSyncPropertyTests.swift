import Foundation
import Strata
import Testing

/// Convergence of a text edited on 2–8 file-sync replicas (docs/SYNC.md), as a seeded
/// property test (issue 35, item 7; docs/TEXT.md, "Merging"): each step either edits one
/// replica's title with `strata splice`/`undo`/`redo` — inserts at the place another
/// replica just used, deletes, replacements — or syncs one replica through the hub, in a
/// seeded random order, so replicas edit apart and exchange their edits in every order. At
/// the end every replica syncs twice; the properties are ``TextConvergenceHistory``'s, the
/// replay a `strata-log replay` of each replica's whole log.
///
/// A replica's undo history is its own saves only (pulled saves never enter it), so each
/// step is read before and after on its replica alone, and a splice must do exactly what it
/// asked to the text it read.
///
/// One case of 45 steps by default (about 20–30 s in a debug build); `STRATA_TEXT_CASES=N`
/// runs N seeds, `STRATA_SEED=S` replays one.
@Suite(.serialized) struct TextSyncProperty {
    static let steps = 45

    @Test func replicasEditingApartAndSyncingInRandomOrdersConverge() throws {
        for seed in textPropertySeeds("TextProperty.sync") { try run(seed: seed) }
    }

    private func run(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...8, using: &random)
        let sandbox = try TemporaryDirectory()
        var history = TextConvergenceHistory()
        let initial = history.freshRun(6)
        let (first, note) = try TextSpliceCommands.note(sandbox, title: initial)
        history.record(replica: 0, kind: "initial", typed: [initial], before: "", after: initial, removes: false)
        let hub = sandbox.path("hub.strata-remote")
        let pushed = try CLI.strata("push", first, hub)
        try #require(pushed.status == 0, "\(pushed.stderr)")
        let replicas = [first] + (1..<count).map { sandbox.path("replica\($0).strata") }
        for replica in replicas.dropFirst() {
            let clone = try CLI.strata("clone", hub, replica)
            try #require(clone.status == 0, "\(clone.stderr)")
        }
        // Each replica's own groups that can be undone and redone: its stack, exactly.
        var undoable = Array(repeating: 0, count: count), redoable = Array(repeating: 0, count: count)
        var recentPlace: Int?
        var order: [String] = []
        func sync(_ index: Int) throws {
            order.append("sync \(index)")
            let result = try CLI.strata("sync", replicas[index])
            #expect(result.status == 0, "seed \(seed): sync of replica \(index): \(result.stderr)")
        }
        for _ in 0..<Self.steps {
            let index = Int.random(in: 0..<count, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                try sync(index)
                continue
            }
            let replica = replicas[index]
            let before = try TextSpliceCommands.title(replica, note)
            let edit = RandomTextEdit.random(length: before.unicodeScalars.count, recentPlace: recentPlace, canUndo: undoable[index] > 0,
                                             canRedo: redoable[index] > 0, history: &history, using: &random)
            recentPlace = edit.place ?? recentPlace
            order.append("\(edit) on \(index)")
            let result = try CLI.run("strata", TextPropertyCommands.arguments(edit, replica, note))
            #expect(result.status == 0, "seed \(seed): \(edit) on replica \(index): \(result.stderr)")
            switch edit {
            case .undo: undoable[index] -= 1; redoable[index] += 1
            case .redo: undoable[index] += 1; redoable[index] -= 1
            default: undoable[index] += 1; redoable[index] = 0
            }
            let after = edit.splice != nil && result.status == 0
                ? String(result.stdout.dropLast()) : try TextSpliceCommands.title(replica, note)
            history.record(replica: index, kind: edit.kind, typed: edit.typed, before: before, after: after, removes: edit.removes,
                           note: "\(edit)", expected: edit.applied(to: before))
        }
        for _ in 0..<2 { for index in replicas.indices { try sync(index) } }
        let finals = try replicas.map { try TextSpliceCommands.title($0, note) }
        let replayed = try replicas.enumerated().map { index, replica in
            ("strata-log replay of replica \(index)", try TextPropertyCommands.replayedTitle(replica, note, in: sandbox))
        }
        let problems = history.problems(finalTexts: finals, replayed: replayed)
        print("TextProperty.sync seed \(seed): \(count) replicas, \(history.summary(finalText: finals[0]))")
        #expect(problems.isEmpty, "seed \(seed), \(count) replicas:\n\(problems.joined(separator: "\n"))\norder: \(order.joined(separator: ", "))\nsteps:\n\(history.steps.map(\.description).joined(separator: "\n"))")
    }
}
