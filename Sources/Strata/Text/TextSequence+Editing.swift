import Foundation

extension TextSequence {
    /// The chunk, run and offset of the shown character at `index` (0-based).
    /// - Precondition: `0 <= index < count`.
    func shown(_ index: Int) -> (chunk: Int, run: Int, offset: Int) {
        guard let (chunk, offset) = order.chunk(containing: index, .visible) else {
            preconditionFailure("shown character \(index) is past the text's \(count)")
        }
        var remaining = offset
        for (run, candidate) in chunks[chunk].runs.enumerated() where !candidate.isDeleted {
            if remaining < candidate.length { return (chunk, run, remaining) }
            remaining -= candidate.length
        }
        preconditionFailure("chunk \(chunk) shows fewer characters than it counts")
    }

    /// Where the shown character at `position` starts in the text's string, in UTF-8
    /// bytes (`count`: the string's end), in O(log chunks + a chunk's runs): a context
    /// changes its `String` there in place of walking it scalar by scalar.
    package func utf8Offset(ofShown position: Int) -> Int {
        if position == count { return order.sums.visibleUTF8 }
        let (chunk, run, offset) = shown(position)
        return utf8Offset(chunk: chunk, run: run, offset: offset)
    }

    /// Where the character at `offset` in a run starts in the text's string, in UTF-8 bytes
    /// (for a deleted run: where it would be).
    func utf8Offset(chunk: Int, run: Int, offset: Int) -> Int {
        var bytes = order.sum(.visibleUTF8, before: chunk)
        for earlier in chunks[chunk].runs[..<run] { bytes += earlier.utf8Count }
        let here = chunks[chunk].runs[run]
        if !here.isDeleted, offset > 0 { bytes += TextRun.utf8Count(of: here.scalars[..<offset]) }
        return bytes
    }

    /// The identity of the shown character at `index` (0-based).
    package func identity(ofShown index: Int) -> TextElementID {
        let (chunk, run, offset) = shown(index)
        return chunks[chunk].runs[run].id.advanced(by: offset)
    }

    /// Inserts `scalars` after the `position`th shown character, as `peer`; returns the
    /// operation other replicas apply.
    ///
    /// The new characters' left origin is the shown character before them and their right
    /// origin whatever character (shown or deleted) follows it, as in Fugue and Yjs: typing
    /// at the end of one's own run continues it, so a word typed key by key is one run.
    /// - Precondition: `0 <= position <= count`.
    package mutating func insert(_ scalars: [Unicode.Scalar], at position: Int, peer: UInt64) -> TextOperation? {
        precondition(position >= 0 && position <= count, "position \(position) is outside the text's \(count) characters")
        guard !scalars.isEmpty else { return nil }
        let id = TextElementID(peer: peer, counter: nextCounter[peer] ?? 0)
        var originLeft: TextElementID?
        var originRight: TextElementID?
        let place: (chunk: Int, run: Int)
        if position == 0 {
            place = (order.first ?? 0, 0)
            originRight = order.first.flatMap { chunks[$0].runs.first?.id }
        } else {
            let (chunk, run, offset) = shown(position - 1)
            let left = chunks[chunk].runs[run].id.advanced(by: offset)
            originLeft = left
            var (leftChunk, leftRun) = (chunk, run)
            if offset + 1 < chunks[chunk].runs[run].length {
                // Inside a run: split it after `left` (which may move runs to a new chunk).
                split(chunk: chunk, run: run, at: offset + 1)
                (leftChunk, leftRun, _) = location(of: left)
            }
            place = (leftChunk, leftRun + 1)
            originRight = self.run(after: leftChunk, leftRun).map { chunks[$0.chunk].runs[$0.run].id }
        }
        let new = TextRun(id: id, length: scalars.count, originLeft: originLeft, originRight: originRight,
                          scalars: ContiguousArray(scalars), isDeleted: false)
        insert(new, chunk: place.chunk, run: place.run)
        return .insert(id: id, originLeft: originLeft, originRight: originRight, scalars: scalars)
    }

    /// Deletes `length` shown characters from `position`; returns the operations other
    /// replicas apply (one per stretch of one peer's consecutive characters).
    /// - Precondition: the range is inside the text.
    package mutating func delete(at position: Int, length: Int) -> [TextOperation] {
        precondition(position >= 0 && length >= 0 && position + length <= count,
                     "\(position)..<\(position + length) is outside the text's \(count) characters")
        var operations: [TextOperation] = []
        var remaining = length
        while remaining > 0 {
            // The characters after the deleted ones move down: the next one is at `position`.
            let (chunk, run, offset) = shown(position)
            let first = chunks[chunk].runs[run].id.advanced(by: offset)
            let taken = min(remaining, chunks[chunk].runs[run].length - offset)
            deleteRange(from: first, count: taken)
            remaining -= taken
            if case .delete(let start, let count)? = operations.last, start.peer == first.peer,
               start.counter &+ UInt32(count) == first.counter {
                operations[operations.count - 1] = .delete(start: start, count: count + taken)
            } else {
                operations.append(.delete(start: first, count: taken))
            }
        }
        return operations
    }

    /// Deletes the characters `first` … `first + count - 1`, which lie in one run: splits
    /// the run around them and marks that part deleted (deleted parts stay deleted).
    mutating func deleteRange(from first: TextElementID, count: Int) {
        var (chunk, run, offset) = location(of: first)
        if offset > 0 {
            split(chunk: chunk, run: run, at: offset)
            (chunk, run, offset) = location(of: first)
        }
        if chunks[chunk].runs[run].length > count {
            split(chunk: chunk, run: run, at: count)
            (chunk, run, offset) = location(of: first)
        }
        if !chunks[chunk].runs[run].isDeleted { markDeleted(chunk: chunk, run: run) }
    }
}
