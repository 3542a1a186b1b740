import Foundation

/// What replicas did to one text in a convergence property test, and the properties their
/// final texts must have (issue 35, item 7; docs/TEXT.md, "Merging" and "Undo"). One
/// checker for every channel — processes on one file, file sync, PostgreSQL — so each
/// claims exactly the same thing.
///
/// Every character typed is a new Unicode scalar (``freshRun(_:)``: CJK ideographs from
/// U+4E00 on, a counter), so a character in a final text names the run that typed it
/// without the checker knowing any identity. What an edit removed or put back is not
/// predicted: it is read off the replica's text before and after the edit (a multiset
/// difference), the only view the person who made it had.
///
/// ```swift
/// var history = TextConvergenceHistory()
/// let run = history.freshRun(3)
/// history.record(replica: 1, kind: "insert", typed: [run], before: old, after: new)
/// let problems = history.problems(finalTexts: texts, replayed: [("replay", replayed)])
/// ```
package struct TextConvergenceHistory: Sendable {
    /// One edit (or, for processes racing on one file, one batch of edits).
    package struct Step: Sendable, CustomStringConvertible {
        /// The replica, process batch or stack that made it.
        package var replica: Int
        /// insert, delete, replace, undo, redo, batch or initial: for messages.
        package var kind: String
        /// The runs it typed, each one insertion.
        package var typed: [[Unicode.Scalar]]
        /// The characters that left the replica's text (before minus after; for a step that
        /// removes, also what it typed that is not there after).
        package var removed: [Unicode.Scalar]
        /// The characters that came back other than those typed (after minus before minus
        /// typed): what an undo or redo put back.
        package var restored: [Unicode.Scalar]
        /// Whether it may remove characters (a delete, replace, undo or redo): a character
        /// that an insert-only step made disappear is lost, not deleted.
        package var removes: Bool
        /// What the step was asked to do, for messages.
        package var note: String

        package var description: String {
            let typedText = typed.map { "\"\(String(String.UnicodeScalarView($0)))\"" }.joined(separator: ", ")
            return "replica \(replica) \(kind) \(note) typed [\(typedText)] removed \"\(String(String.UnicodeScalarView(removed)))\" restored \"\(String(String.UnicodeScalarView(restored)))\""
        }
    }

    /// The steps, in the order the test made them.
    package private(set) var steps: [Step] = []
    /// Problems seen while recording: a step whose own effect was not what it asked for.
    package private(set) var stepProblems: [String] = []
    private var nextScalar: UInt32 = 0x4E00

    package init() {}

    /// `count` characters never typed before in this history.
    package mutating func freshRun(_ count: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<count {
            precondition(nextScalar <= 0x9FFF, "a property test typed more than the CJK block holds")
            scalars.append(Unicode.Scalar(nextScalar)!)
            nextScalar += 1
        }
        return String(scalars)
    }

    /// Records a step from the replica's text `before` and `after` it. `expected` is what the
    /// replica's text must be after a splice made alone on it (nil when other edits may land
    /// in between, or for undo and redo, whose effect the checker does not predict).
    package mutating func record(replica: Int, kind: String, typed: [String], before: String, after: String,
                                 removes: Bool, note: String = "", expected: String? = nil) {
        let typedScalars = typed.map { Array($0.unicodeScalars) }
        let beforeCounts = Self.counts(before), afterCounts = Self.counts(after)
        var removed: [Unicode.Scalar] = [], restored: [Unicode.Scalar] = []
        var typedCounts: [Unicode.Scalar: Int] = [:]
        for scalar in typedScalars.joined() { typedCounts[scalar, default: 0] += 1 }
        for (scalar, count) in beforeCounts where count > afterCounts[scalar, default: 0] {
            removed += Array(repeating: scalar, count: count - afterCounts[scalar, default: 0])
        }
        // A removing step may remove what it typed itself: an undo racing on one file may
        // undo a splice of its own batch, saved first.
        if removes {
            for (scalar, count) in typedCounts where count + beforeCounts[scalar, default: 0] > afterCounts[scalar, default: 0] {
                removed += Array(repeating: scalar, count: count + beforeCounts[scalar, default: 0] - max(afterCounts[scalar, default: 0], beforeCounts[scalar, default: 0]))
            }
        }
        for (scalar, count) in afterCounts {
            let extra = count - beforeCounts[scalar, default: 0] - typedCounts[scalar, default: 0]
            if extra > 0 { restored += Array(repeating: scalar, count: extra) }
        }
        let step = Step(replica: replica, kind: kind, typed: typedScalars, removed: removed.sorted(), restored: restored.sorted(),
                        removes: removes, note: note)
        if let expected, expected != after {
            stepProblems.append("step \(steps.count) (\(step)): the replica's own text became \"\(after)\" from \"\(before)\", expected \"\(expected)\"")
        }
        steps.append(step)
    }

    /// Every property the final texts must have; empty when all hold.
    ///
    /// 1. All replicas' texts are equal.
    /// 2. No typed character is missing unless a step that removes characters removed it
    ///    from some replica's text.
    /// 3. Nothing appears that nobody typed, and a character shows at most once, or as many
    ///    times as undos and redos put it back.
    /// 4. Runs never interleave character by character: the surviving characters of one run
    ///    keep their order (but for those undos in several replicas put back: each made a
    ///    copy, and which copy of each survives is up to later deletions), and for any two runs of 2 or more characters the text switches
    ///    between them at most twice (A B, B A, or A B A when one was typed inside the other).
    /// 5. Every replayed text (a log replayed from empty) equals the replicas' text.
    package func problems(finalTexts: [String], replayed: [(label: String, text: String)]) -> [String] {
        var problems = stepProblems
        guard let final = finalTexts.first else { return problems + ["no final text"] }
        if Set(finalTexts).count != 1 {
            problems.append("the replicas did not converge:\n" + finalTexts.enumerated().map { "  replica \($0): \"\($1)\"" }.joined(separator: "\n"))
        }
        let counts = Self.counts(final)
        var typedBy: [Unicode.Scalar: Int] = [:], deleted: Set<Unicode.Scalar> = [], putBack: [Unicode.Scalar: Int] = [:]
        for (index, step) in steps.enumerated() {
            for scalar in step.typed.joined() { typedBy[scalar] = index }
            if step.removes { deleted.formUnion(step.removed) }
            for scalar in step.restored { putBack[scalar, default: 0] += 1 }
        }
        // 2. Lost characters, by the step that typed them.
        var lost: [Int: [Unicode.Scalar]] = [:]
        for (scalar, index) in typedBy where counts[scalar] == nil && !deleted.contains(scalar) { lost[index, default: []].append(scalar) }
        for (index, scalars) in lost.sorted(by: { $0.key < $1.key }) {
            problems.append("lost, never deleted: \"\(String(String.UnicodeScalarView(scalars.sorted())))\" typed by step \(index) (\(steps[index]))")
        }
        // 3. Characters nobody typed, or shown more often than they were put back.
        for (scalar, count) in counts.sorted(by: { $0.key.value < $1.key.value }) {
            if typedBy[scalar] == nil {
                problems.append("\"\(scalar)\" (U+\(String(scalar.value, radix: 16, uppercase: true))) appears but nobody typed it")
            } else if count > max(1, putBack[scalar, default: 0]) {
                problems.append("\"\(scalar)\" shows \(count) times but was put back \(putBack[scalar, default: 0]) times")
            }
        }
        // Characters that undos in two or more replicas each put back: each undo made a
        // copy of its own, and later deletions may leave one copy of one character and
        // another copy of its neighbour, so they name no one place in their run.
        var restoredBy: [Unicode.Scalar: Set<Int>] = [:]
        for step in steps { for scalar in step.restored { restoredBy[scalar, default: []].insert(step.replica) } }
        let copied = Set(restoredBy.filter { $0.value.count > 1 }.keys)
        problems += interleavings(in: final, counts: counts, copied: copied)
        // 5. Replays.
        for (label, text) in replayed where text != final {
            problems.append("\(label) gives \"\(text)\", the replicas \"\(final)\"")
        }
        return problems
    }

    /// Property 4: the positions of each run's surviving characters, compared pairwise.
    /// A character shown twice, or `copied` (put back by undos in several replicas), has
    /// no one place: it is left out.
    private func interleavings(in final: String, counts: [Unicode.Scalar: Int], copied: Set<Unicode.Scalar>) -> [String] {
        var position: [Unicode.Scalar: Int] = [:]
        for (index, scalar) in final.unicodeScalars.enumerated() where counts[scalar] == 1 && !copied.contains(scalar) {
            position[scalar] = index
        }
        var runs: [(label: String, positions: [Int])] = []
        var problems: [String] = []
        for (stepIndex, step) in steps.enumerated() {
            for (runIndex, run) in step.typed.enumerated() {
                // A character shown twice (two undos each put it back) names no one place.
                guard run.allSatisfy({ counts[$0, default: 0] <= 1 }) else { continue }
                let run = run.filter { !copied.contains($0) }
                let positions = run.compactMap { position[$0] }
                let label = "run \"\(String(String.UnicodeScalarView(run)))\" (step \(stepIndex), run \(runIndex))"
                if positions != positions.sorted() {
                    problems.append("\(label) is out of order: \"\(String(String.UnicodeScalarView(run.filter { position[$0] != nil }.sorted { position[$0]! < position[$1]! })))\"")
                }
                if positions.count >= 2 { runs.append((label, positions.sorted())) }
            }
        }
        for first in runs.indices {
            for second in runs.indices where second > first {
                let a = runs[first].positions, b = runs[second].positions
                guard a.last! > b.first!, b.last! > a.first! else { continue }   // apart: no switch inside
                var i = 0, j = 0, blocks = 0, lastOwner = -1
                while i < a.count || j < b.count {
                    let owner = j == b.count || (i < a.count && a[i] < b[j]) ? 0 : 1
                    if owner == 0 { i += 1 } else { j += 1 }
                    if owner != lastOwner { blocks += 1; lastOwner = owner }
                }
                if blocks > 3 {
                    let low = min(a.first!, b.first!), high = max(a.last!, b.last!)
                    let excerpt = String(String.UnicodeScalarView(Array(final.unicodeScalars)[low...high]))
                    problems.append("\(runs[first].label) and \(runs[second].label) interleave in \(blocks) blocks: \"\(excerpt)\"")
                }
            }
        }
        return problems
    }

    /// A one-line account of the steps, for the test's output.
    package func summary(finalText: String) -> String {
        var kinds: [String: Int] = [:]
        for step in steps { kinds[step.kind, default: 0] += 1 }
        let typed = steps.reduce(0) { $0 + $1.typed.count }
        return "\(steps.count) steps (\(kinds.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), \(typed) runs typed, final text \(finalText.unicodeScalars.count) characters"
    }

    private static func counts(_ text: String) -> [Unicode.Scalar: Int] {
        var counts: [Unicode.Scalar: Int] = [:]
        for scalar in text.unicodeScalars { counts[scalar, default: 0] += 1 }
        return counts
    }
}
