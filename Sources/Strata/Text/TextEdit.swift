import Foundation

/// What one flush changed in one text attribute of one object, as the log records it: the
/// splices as characters inserted and deleted by identity, so that every replica applies
/// them to the same characters whatever else changed the text meanwhile (docs/TEXT.md,
/// "Operations").
///
/// A log entry holds its deleted characters too, so that it can be undone without looking
/// anything up, as an update holds its old values. Its ``inverse`` deletes the characters
/// it inserted and puts back the ones it deleted — as new characters, placed where the
/// deleted ones were, which the context undoing it gives identities of its own. So undo
/// reverts one's own edits and never removes what others typed meanwhile.
public struct TextEdit: Hashable, Sendable, CustomStringConvertible {
    /// One step of an edit.
    package enum Step: Hashable, Sendable {
        /// Characters inserted (``TextOperation/insert(id:originLeft:originRight:scalars:)``).
        case insert(id: TextElementID, originLeft: TextElementID?, originRight: TextElementID?, scalars: [Unicode.Scalar])
        /// One peer's consecutive characters deleted, with the scalars they showed.
        case delete(start: TextElementID, scalars: [Unicode.Scalar])
        /// Deleted characters put back as new ones, `after` being the last of them: each
        /// stretch of them that lie next to each other right after its own last one. Only in
        /// an inverse, until a context applies it and records the insertions it made.
        case restore(after: TextElementID, scalars: [Unicode.Scalar])

        /// The operation every replica applies; nil for a restore, which has none until a
        /// context gives it identities.
        package var operation: TextOperation? {
            switch self {
            case .insert(let id, let left, let right, let scalars):
                return .insert(id: id, originLeft: left, originRight: right, scalars: scalars)
            case .delete(let start, let scalars):
                return .delete(start: start, count: scalars.count)
            case .restore:
                return nil
            }
        }
    }

    /// The steps, in the order they were made.
    package var steps: [Step]

    package init(steps: [Step] = []) {
        self.steps = steps
    }

    /// Whether the edit changes nothing.
    public var isEmpty: Bool { steps.isEmpty }

    /// How many characters the edit inserts (restores included).
    public var insertedCount: Int {
        steps.reduce(0) { total, step in
            switch step {
            case .insert(_, _, _, let scalars), .restore(_, let scalars): return total + scalars.count
            case .delete: return total
            }
        }
    }

    /// How many characters the edit deletes.
    public var deletedCount: Int {
        steps.reduce(0) { total, step in
            if case .delete(_, let scalars) = step { return total + scalars.count }
            return total
        }
    }

    /// The strings the edit inserts, step by step (restores included).
    public var insertions: [String] {
        steps.compactMap { step in
            switch step {
            case .insert(_, _, _, let scalars), .restore(_, let scalars): return Self.string(scalars)
            case .delete: return nil
            }
        }
    }

    /// The strings the edit deletes, step by step.
    public var deletions: [String] {
        steps.compactMap { step in
            if case .delete(_, let scalars) = step { return Self.string(scalars) }
            return nil
        }
    }

    private static func string(_ scalars: [Unicode.Scalar]) -> String {
        String(scalars: scalars)
    }

    /// The edit that undoes this one: its insertions deleted and its deletions restored,
    /// newest first.
    public var inverse: TextEdit {
        var inverted: [Step] = []
        inverted.reserveCapacity(steps.count)
        for step in steps.reversed() {
            switch step {
            case .insert(let id, _, _, let scalars):
                inverted.append(.delete(start: id, scalars: scalars))
            case .delete(let start, let scalars):
                inverted.append(.restore(after: start.advanced(by: scalars.count - 1), scalars: scalars))
            case .restore:
                // A restore is inverted once a context made it an insertion (what the log
                // holds); before, it has no characters to delete.
                continue
            }
        }
        return TextEdit(steps: inverted)
    }

    /// Appends `step`, joining it to the last one when it continues it: typing at the end
    /// of one's own insertion, or deleting the next of one peer's characters.
    package mutating func append(_ step: Step) {
        // The last step lets go of its scalars before they grow, so that they grow in place:
        // a new array per keystroke made a long run of typing quadratic.
        if let index = steps.indices.last {
            switch step {
            case .insert(let nextID, let nextLeft, let nextRight, let more):
                if case .insert(let id, let left, let right, var scalars) = steps[index],
                   nextID == id.advanced(by: scalars.count), nextLeft == nextID.advanced(by: -1), nextRight == right {
                    steps[index] = .delete(start: id, scalars: [])
                    scalars.append(contentsOf: more)
                    steps[index] = .insert(id: id, originLeft: left, originRight: right, scalars: scalars)
                    return
                }
            case .delete(let next, let more):
                if case .delete(let start, var scalars) = steps[index], next == start.advanced(by: scalars.count) {
                    steps[index] = .delete(start: start, scalars: [])
                    scalars.append(contentsOf: more)
                    steps[index] = .delete(start: start, scalars: scalars)
                    return
                }
            case .restore:
                break
            }
        }
        steps.append(step)
    }

    /// `+3 −1 characters`: what the edit inserts and deletes.
    public var description: String { "+\(insertedCount) −\(deletedCount) characters" }
}
