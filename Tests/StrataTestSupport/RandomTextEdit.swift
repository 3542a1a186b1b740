import Foundation

/// One random edit of the text convergence property tests (``TextConvergenceHistory``):
/// what a person does to a text, drawn the same way for processes on one file, file-sync
/// replicas and PostgreSQL stacks so the channels are tested alike.
package enum RandomTextEdit: Sendable, Equatable, CustomStringConvertible {
    /// Types `run` (new characters) at a position.
    case insert(at: Int, run: String)
    /// Deletes `count` characters from a position.
    case delete(at: Int, count: Int)
    /// Deletes `count` characters from a position and types `run` there.
    case replace(at: Int, count: Int, run: String)
    /// Undoes the editor's last group.
    case undo
    /// Redoes the editor's last undone group.
    case redo

    /// A random edit of a text `length` scalars long: an insert of 1–6 new characters half of
    /// the time, else a delete or a replacement of 1–4 characters, an undo or a redo.
    ///
    /// - Parameters:
    ///   - recentPlace: where another replica just edited; an insert or replacement lands
    ///     there again a third of the time, so that runs meet at one place.
    ///   - canUndo, canRedo: whether the editor has a group to undo or redo (else the edit
    ///     is an insert).
    ///   - removes: false when the edit must not remove characters (it is then an insert).
    ///   - insertLimit: the last position an insert may take (default `length`): a process
    ///     racing another that removes characters keeps clear of the end.
    package static func random(length: Int, recentPlace: Int?, canUndo: Bool, canRedo: Bool, removes: Bool = true,
                               insertLimit: Int? = nil, history: inout TextConvergenceHistory,
                               using random: inout SeededGenerator) -> RandomTextEdit {
        let limit = max(0, min(insertLimit ?? length, length))
        func place(_ last: Int) -> Int {
            if let recentPlace, recentPlace <= last, Int.random(in: 0..<3, using: &random) == 0 { return recentPlace }
            return Int.random(in: 0...last, using: &random)
        }
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 50..<65 where removes && length > 0:
            let at = place(length - 1)
            return .delete(at: at, count: Int.random(in: 1...min(4, length - at), using: &random))
        case 65..<80 where removes && length > 0:
            let at = place(length - 1)
            return .replace(at: at, count: Int.random(in: 1...min(4, length - at), using: &random),
                            run: history.freshRun(Int.random(in: 1...6, using: &random)))
        case 80..<92 where removes && canUndo:
            return .undo
        case 92..<100 where removes && canRedo:
            return .redo
        default:
            return .insert(at: place(limit), run: history.freshRun(Int.random(in: 1...6, using: &random)))
        }
    }

    /// Whether the edit may remove characters from the text.
    package var removes: Bool {
        if case .insert = self { return false }
        return true
    }

    /// The characters it types.
    package var typed: [String] {
        switch self {
        case .insert(_, let run), .replace(_, _, let run): return [run]
        case .delete, .undo, .redo: return []
        }
    }

    /// Where it edits (nil for undo and redo).
    package var place: Int? {
        switch self {
        case .insert(let at, _), .delete(let at, _), .replace(let at, _, _): return at
        case .undo, .redo: return nil
        }
    }

    /// The scalar range it replaces and the text it puts there (nil for undo and redo).
    package var splice: (range: Range<Int>, text: String)? {
        switch self {
        case .insert(let at, let run): return (at..<at, run)
        case .delete(let at, let count): return (at..<(at + count), "")
        case .replace(let at, let count, let run): return (at..<(at + count), run)
        case .undo, .redo: return nil
        }
    }

    /// `text` after this edit made on it alone (nil for undo and redo).
    package func applied(to text: String) -> String? {
        guard let splice else { return nil }
        var scalars = Array(text.unicodeScalars)
        scalars.replaceSubrange(splice.range, with: splice.text.unicodeScalars)
        return String(String.UnicodeScalarView(scalars))
    }

    /// A name for the history and failure messages.
    package var kind: String {
        switch self {
        case .insert: return "insert"
        case .delete: return "delete"
        case .replace: return "replace"
        case .undo: return "undo"
        case .redo: return "redo"
        }
    }

    package var description: String {
        switch self {
        case .insert(let at, let run): return "insert \"\(run)\" at \(at)"
        case .delete(let at, let count): return "delete \(count) at \(at)"
        case .replace(let at, let count, let run): return "replace \(count) at \(at) with \"\(run)\""
        case .undo: return "undo"
        case .redo: return "redo"
        }
    }
}

/// The seeds of a text property test: `testSeed(label)` (so `STRATA_SEED` replays a case)
/// and, when `STRATA_TEXT_CASES=N` asks for more cases, the N − 1 seeds after it, each
/// printed so a failing one can be replayed alone.
package func textPropertySeeds(_ label: String) -> [UInt64] {
    let first = testSeed(label)
    let cases = max(1, ProcessInfo.processInfo.environment["STRATA_TEXT_CASES"].flatMap { Int($0) } ?? 1)
    return (0..<UInt64(cases)).map { index in
        if index > 0 { print("\(label) case \(index) seed: \(first &+ index) (replay with STRATA_SEED=\(first &+ index))") }
        return first &+ index
    }
}
