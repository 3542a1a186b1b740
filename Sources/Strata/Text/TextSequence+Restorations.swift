import Foundation

extension TextSequence {
    /// Where this replica put deleted characters back as new ones (an undo of a deletion
    /// restores them with identities of its own, docs/TEXT.md "Undo"), so that what names
    /// the deleted ones reaches the restored ones:
    ///
    /// - the undo of the typing that inserted them deletes the restored characters (else the
    ///   undo of "type a word, backspace it" would leave the word);
    /// - a cursor on a deleted character moves to the one put back.
    ///
    /// A character is deleted once (deleting a tombstone changes nothing, and this replica's
    /// own deletions follow restorations), so it is restored at most once: the ranges of one
    /// peer never overlap, and each peer's are kept sorted by their first deleted counter.
    struct Restorations: Sendable {
        struct Span: Sendable {
            var deleted: UInt32
            var count: Int
            var restored: TextElementID
        }

        private var byPeer: [UInt64: [Span]] = [:]

        var isEmpty: Bool { byPeer.isEmpty }

        /// Whether characters of `peer` were ever put back here.
        func follows(_ peer: UInt64) -> Bool { byPeer[peer] != nil }

        /// Records that `count` characters from `deleted` were put back as the characters
        /// from `restored`.
        mutating func add(deleted: TextElementID, count: Int, restored: TextElementID) {
            let span = Span(deleted: deleted.counter, count: count, restored: restored)
            // In place, and usually at the end (an undo walks back, a redo forward): no copy
            // of the peer's spans per restore.
            byPeer[deleted.peer, default: []].insertSorted(span)
        }

        /// The character `id` was put back as, if it was.
        func restored(_ id: TextElementID) -> TextElementID? {
            guard let ranges = byPeer[id.peer] else { return nil }
            // The last range starting at or before the counter.
            var low = 0, high = ranges.count
            while low < high {
                let middle = (low + high) / 2
                if ranges[middle].deleted <= id.counter { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            let range = ranges[low - 1]
            let offset = Int(id.counter - range.deleted)
            return offset < range.count ? range.restored.advanced(by: offset) : nil
        }

        /// Adds `other`'s ranges (of characters this replica restored in another copy of
        /// the text).
        mutating func add(_ other: Restorations) {
            for (peer, ranges) in other.byPeer {
                byPeer[peer, default: []] += ranges
                byPeer[peer]!.sort { $0.deleted < $1.deleted }
            }
        }

        /// Carries the restorations over to a text read again from the store (after a save
        /// or a refresh): the store's text holds the restored characters too.
        func carried(into sequence: inout TextSequence) {
            guard !isEmpty else { return }
            sequence.restorations.add(self)
        }
    }

    /// The character that stands for `id` now: `id` itself, or — when this replica
    /// deleted it and put it back — the character put back, followed through every later
    /// restore of that one.
    func current(_ id: TextElementID) -> TextElementID {
        var id = id
        // Each step moves to a character inserted later than the one before: it ends.
        while isDeleted(id), let restored = restorations.restored(id), contains(restored) { id = restored }
        return id
    }

    /// The characters that stand for the `count` characters from `start` now
    /// (``current(_:)``), as runs of consecutive identities, each with the offsets from
    /// `start` it covers.
    func shownCharacters(for start: TextElementID, count: Int) -> [(TextElementID, Range<Int>)] {
        var runs: [(TextElementID, Range<Int>)] = []
        for offset in 0..<count {
            let id = current(start.advanced(by: offset))
            if let last = runs.last, last.0.peer == id.peer, last.0.advanced(by: last.1.count) == id {
                runs[runs.count - 1].1 = last.1.lowerBound..<(offset + 1)
            } else {
                runs.append((id, offset..<(offset + 1)))
            }
        }
        return runs
    }

    /// The `count` characters from `first` (one peer's consecutive identities) split where
    /// something lies between two of them in the text: offsets from `first`, in order.
    func adjacentStretches(from first: TextElementID, count: Int) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var start = 0
        for offset in 1..<max(count, 1) where !holds(first.advanced(by: offset), rightAfter: first.advanced(by: offset - 1)) {
            stretches.append(start..<offset)
            start = offset
        }
        stretches.append(start..<count)
        return stretches
    }
}

private extension Array where Element == TextSequence.Restorations.Span {
    /// Inserts `span` after every span that starts at or before it.
    mutating func insertSorted(_ span: Element) {
        if let last, last.deleted <= span.deleted { return append(span) }
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].deleted <= span.deleted { low = middle + 1 } else { high = middle }
        }
        insert(span, at: low)
    }
}
