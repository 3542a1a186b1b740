import Foundation

extension TextSequence {
    /// The peer every replica gives a text's first value: the characters an object was
    /// inserted with, or a text had when it was first edited as one, are `0@0`, `0@1`, …
    /// everywhere, so replicas agree on them without exchanging anything (docs/TEXT.md,
    /// "Identities"). No context, process or replica is peer 0.
    package static let basePeer: UInt64 = 0

    /// A text holding `value` as its first value, with the base peer's identities.
    package init(base value: String) {
        self.init()
        let scalars = Array(value.unicodeScalars)
        _ = insert(scalars, at: 0, peer: Self.basePeer)
    }

    /// Inserts `scalars` right after the character `left` (shown or deleted), as `peer`;
    /// returns the operation other replicas apply. A restore puts deleted characters back
    /// so, after the last of them.
    package mutating func insert(_ scalars: [Unicode.Scalar], after left: TextElementID, peer: UInt64) -> TextOperation? {
        guard !scalars.isEmpty else { return nil }
        let id = TextElementID(peer: peer, counter: nextCounter[peer] ?? 0)
        var (chunk, run, offset) = location(of: left)
        if offset + 1 < chunks[chunk].runs[run].length {
            split(chunk: chunk, run: run, at: offset + 1)
            (chunk, run, offset) = location(of: left)
        }
        let originRight = self.run(after: chunk, run).map { chunks[$0.chunk].runs[$0.run].id }
        let operation = TextOperation.insert(id: id, originLeft: left, originRight: originRight, scalars: scalars)
        // Placed as a remote insertion with these origins would be: before any run that
        // replicas order between `left` and its right origin (FugueMax's rules).
        try! apply(operation)
        return operation
    }

    /// Replaces `length` shown characters from `position` with `scalars`, as `peer`; returns
    /// the steps to log (deletions with the scalars they removed, then the insertion).
    /// - Precondition: the range is inside the text.
    package mutating func replace(at position: Int, length: Int, with scalars: [Unicode.Scalar], peer: UInt64) -> [TextEdit.Step] {
        var steps: [TextEdit.Step] = []
        if length > 0 {
            var removed: [Unicode.Scalar] = []
            removed.reserveCapacity(length)
            for index in position..<(position + length) {
                let (chunk, run, offset) = shown(index)
                removed.append(chunks[chunk].runs[run].scalars[offset])
            }
            var taken = 0
            for operation in delete(at: position, length: length) {
                guard case .delete(let start, let count) = operation else { continue }
                steps.append(.delete(start: start, scalars: Array(removed[taken..<(taken + count)])))
                taken += count
            }
        }
        if let operation = insert(scalars, at: position, peer: peer),
           case .insert(let id, let left, let right, let inserted) = operation {
            steps.append(.insert(id: id, originLeft: left, originRight: right, scalars: inserted))
        }
        return steps
    }

    /// Applies an edit's steps: insertions and deletions as any replica's, restores as new
    /// insertions by `peer`. Returns the edit as applied (restores made insertions), which is
    /// what the log records.
    /// A store applies what contexts logged, which holds no restores
    /// (`resolvingRestores: false`).
    /// - Throws: `.corruptDocument` when a step names a character the text does not hold, or
    ///   is a restore a store was given; the steps before it stay applied.
    ///
    /// - Parameter changed: told each change to the shown characters as it is made: where
    ///   (UTF-8 offset into the text's string as it is then), how many UTF-8 bytes go, and the
    ///   scalars that come — so a caller keeps its `String` in step without rebuilding it.
    package mutating func apply(_ edit: TextEdit, peer: UInt64, resolvingRestores: Bool = true,
                                changed: ((_ utf8Offset: Int, _ utf8Removed: Int, _ inserted: [Unicode.Scalar]) -> Void)? = nil) throws -> TextEdit {
        var applied = TextEdit()
        for step in edit.steps {
            switch step {
            case .delete(let start, let scalars) where resolvingRestores && restorations.follows(start.peer):
                // This context's undo or redo deleting characters it put back meanwhile:
                // the ones put back are deleted (docs/TEXT.md, "Undo").
                for (id, range) in shownCharacters(for: start, count: scalars.count) {
                    let step = TextEdit.Step.delete(start: id, scalars: Array(scalars[range]))
                    try apply(step, changed: changed)
                    applied.append(step)
                }
            case .insert, .delete:
                try apply(step, changed: changed)
                applied.append(step)
            case .restore(let after, let scalars):
                guard resolvingRestores else {
                    throw StrataError(.corruptDocument, "A logged text edit restores characters after \(after) without giving them identities.")
                }
                guard contains(after) else {
                    throw StrataError(.corruptDocument, "A text edit restores characters after \(after), which the text does not hold.")
                }
                // Each stretch of the deleted characters that lie next to each other goes back
                // after its own last one: a deletion of one peer's consecutive characters may
                // span others' characters (tombstones then, perhaps shown again now).
                let first = after.advanced(by: -(scalars.count - 1))
                for stretch in adjacentStretches(from: first, count: scalars.count) {
                    let last = first.advanced(by: stretch.upperBound - 1)
                    if case .insert(let id, let left, let right, let inserted)? = insert(Array(scalars[stretch]), after: last, peer: peer) {
                        if let changed { changed(utf8Offset(of: id), 0, inserted) }
                        applied.append(.insert(id: id, originLeft: left, originRight: right, scalars: inserted))
                        restorations.add(deleted: first.advanced(by: stretch.lowerBound), count: stretch.count, restored: id)
                    }
                }
            }
        }
        return applied
    }

    /// Applies one insertion or deletion, telling `changed` what it did to the shown
    /// characters.
    private mutating func apply(_ step: TextEdit.Step, changed: ((Int, Int, [Unicode.Scalar]) -> Void)?) throws {
        guard let changed else { return try apply(step.operation!) }
        switch step {
        case .insert(let id, _, _, let scalars):
            guard !scalars.isEmpty else { return }
            let applied = contains(id.advanced(by: scalars.count - 1))
            try apply(step.operation!)
            if !applied, !isDeleted(id) { changed(utf8Offset(of: id), 0, scalars) }
        case .delete(let start, let scalars):
            guard contains(start), contains(start.advanced(by: scalars.count - 1)) else { return try apply(step.operation!) }
            // Stretch by stretch, as the deletion splits runs: each shown one leaves the string.
            var next = start
            var remaining = scalars.count
            while remaining > 0 {
                let (chunk, run, offset) = location(of: next)
                let here = chunks[chunk].runs[run]
                let taken = min(remaining, here.length - offset)
                if !here.isDeleted {
                    let bytes = TextRun.utf8Count(of: here.scalars[offset..<(offset + taken)])
                    let at = utf8Offset(chunk: chunk, run: run, offset: offset)
                    deleteRange(from: next, count: taken)
                    changed(at, bytes, [])
                }
                next = next.advanced(by: taken)
                remaining -= taken
            }
        case .restore:
            preconditionFailure("a restore is applied by apply(_:peer:resolvingRestores:changed:)")
        }
    }

    /// Where the character `id` (which the text holds) starts in the text's string, in
    /// UTF-8 bytes.
    func utf8Offset(of id: TextElementID) -> Int {
        let (chunk, run, offset) = location(of: id)
        return utf8Offset(chunk: chunk, run: run, offset: offset)
    }
}

extension TextSequence {
    /// The fewest splices that turn `old` into `new`: the common start and end kept, the
    /// middle replaced. `setValue` of a whole string on a text becomes this.
    package static func difference(from old: String, to new: String) -> (position: Int, length: Int, inserted: [Unicode.Scalar])? {
        let before = Array(old.unicodeScalars)
        let after = Array(new.unicodeScalars)
        var prefix = 0
        while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < before.count - prefix, suffix < after.count - prefix,
              before[before.count - 1 - suffix] == after[after.count - 1 - suffix] { suffix += 1 }
        let length = before.count - prefix - suffix
        let inserted = Array(after[prefix..<(after.count - suffix)])
        if length == 0 && inserted.isEmpty { return nil }
        return (prefix, length, inserted)
    }
}

extension TextSequence {
    /// Whether a record inserted with `value` keeps the characters `existing` it had (it
    /// was deleted and is inserted again, as an undo of the delete does): when they show
    /// exactly that value. Every store and context decides so, alike, so the log's later
    /// splices name the same characters everywhere (docs/TEXT.md, "Undo").
    package static func keeps(_ existing: TextSequence?, forInsertOf value: PropertyValue) -> Bool {
        guard let existing else { return false }
        return existing.string == value.textValue
    }

    /// Whether every character is still the first value's, as inserted: the string alone
    /// says everything then (a document keeps no identities for it).
    package var isFirstValueOnly: Bool {
        guard runCount <= 1 else { return false }
        guard let run = order.first.flatMap({ chunks[$0].runs.first }) else { return true }
        return run.id == TextElementID(peer: Self.basePeer, counter: 0) && !run.isDeleted
    }
}
