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
    /// own deletions follow restorations), so it is restored at most once: the spans of one
    /// peer never overlap, and each peer's are kept sorted by their first deleted counter.
    struct Restorations: Sendable {
        struct Span: Sendable {
            var deleted: UInt32
            var count: Int
            var restored: TextElementID
        }

        private var byPeer: [UInt64: SpanList] = [:]

        var isEmpty: Bool { byPeer.isEmpty }

        /// Whether characters of `peer` were ever put back here.
        func follows(_ peer: UInt64) -> Bool { byPeer[peer] != nil }

        /// Records that `count` characters from `deleted` were put back as the characters
        /// from `restored`.
        mutating func add(deleted: TextElementID, count: Int, restored: TextElementID) {
            byPeer[deleted.peer, default: SpanList()].insert(Span(deleted: deleted.counter, count: count, restored: restored))
        }

        /// Records what ``add(deleted:count:restored:)`` records, but for the characters
        /// already known to be put back (a restore read again from the log, a context's own
        /// restore also in the log): the spans of a peer never overlap.
        mutating func addNew(deleted: TextElementID, count: Int, restored: TextElementID) {
            var start = 0
            for offset in 0...count where offset == count || self.restored(deleted.advanced(by: offset)) != nil {
                if offset > start { add(deleted: deleted.advanced(by: start), count: offset - start, restored: restored.advanced(by: start)) }
                start = offset + 1
            }
        }

        /// Adds `other`'s spans as ``addNew(deleted:count:restored:)`` does.
        mutating func addNew(_ other: Restorations) {
            for (peer, spans) in other.byPeer {
                for span in spans.all { addNew(deleted: TextElementID(peer: peer, counter: span.deleted), count: span.count, restored: span.restored) }
            }
        }

        /// The character `id` was put back as, if it was.
        func restored(_ id: TextElementID) -> TextElementID? {
            guard let span = byPeer[id.peer]?.last(startingAtOrBefore: id.counter) else { return nil }
            let offset = Int(id.counter - span.deleted)
            return offset < span.count ? span.restored.advanced(by: offset) : nil
        }

        /// Adds `other`'s ranges (of characters this replica restored in another copy of
        /// the text).
        mutating func add(_ other: Restorations) {
            for (peer, spans) in other.byPeer {
                for span in spans.all { byPeer[peer, default: SpanList()].insert(span) }
            }
        }

        /// Carries the restorations over to a text read again from the store (after a save
        /// or a refresh): the store's text holds the restored characters too.
        func carried(into sequence: inout TextSequence) {
            guard !isEmpty else { return }
            if sequence.restorations.isEmpty { sequence.restorations = self } else { sequence.restorations.add(self) }
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

extension TextSequence.Restorations {
    /// One peer's spans, sorted by first deleted counter, in buckets of at most
    /// ``bucketCapacity``: an undo walking back puts characters back newest first, so spans
    /// arrive in falling order, and one sorted array would move all of them per restore.
    struct SpanList: Sendable {
        static let bucketCapacity = 128
        private var buckets: [[Span]] = []

        var all: [Span] { buckets.flatMap { $0 } }

        /// The index of the last bucket whose first span starts at or before `counter`
        /// (0 when none does).
        private func bucket(for counter: UInt32) -> Int {
            var low = 0, high = buckets.count
            while low < high {
                let middle = (low + high) / 2
                if buckets[middle][0].deleted <= counter { low = middle + 1 } else { high = middle }
            }
            return max(low - 1, 0)
        }

        mutating func insert(_ span: Span) {
            guard !buckets.isEmpty else { return buckets = [[span]] }
            let index = bucket(for: span.deleted)
            var low = 0, high = buckets[index].count
            while low < high {
                let middle = (low + high) / 2
                if buckets[index][middle].deleted <= span.deleted { low = middle + 1 } else { high = middle }
            }
            buckets[index].insert(span, at: low)
            if buckets[index].count > Self.bucketCapacity {
                let half = buckets[index].count / 2
                let upper = Array(buckets[index][half...])
                buckets[index].removeSubrange(half...)
                buckets.insert(upper, at: index + 1)
            }
        }

        /// The last span starting at or before `counter`.
        func last(startingAtOrBefore counter: UInt32) -> Span? {
            guard !buckets.isEmpty else { return nil }
            let spans = buckets[bucket(for: counter)]
            var low = 0, high = spans.count
            while low < high {
                let middle = (low + high) / 2
                if spans[middle].deleted <= counter { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? spans[low - 1] : nil
        }
    }
}
