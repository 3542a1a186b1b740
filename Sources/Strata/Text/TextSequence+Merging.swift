import Foundation

extension TextSequence {
    /// Applies an operation made by this or another replica (docs/TEXT.md, "Merging").
    ///
    /// Operations must arrive in causal order: a peer's insertions in the order it made
    /// them, and an operation after those of the characters it names (the log's order
    /// gives both). An operation already applied changes nothing.
    /// - Throws: ``StrataStorage/StrataError`` `.corruptDocument`
    ///   when it names a character the text does not hold.
    package mutating func apply(_ operation: TextOperation) throws {
        switch operation {
        case .insert(let id, let originLeft, let originRight, let scalars):
            guard !scalars.isEmpty else { return }
            let known = nextCounter[id.peer] ?? 0
            if id.counter &+ UInt32(scalars.count) <= known { return }   // applied already
            guard id.counter == known else { throw Self.outOfOrder("inserts \(id)", expected: TextElementID(peer: id.peer, counter: known)) }
            for origin in [originLeft, originRight].compactMap({ $0 }) where !contains(origin) {
                throw Self.outOfOrder("inserts \(id) next to \(origin)", expected: nil)
            }
            integrate(TextRun(id: id, length: scalars.count, originLeft: originLeft, originRight: originRight,
                              scalars: ContiguousArray(scalars), isDeleted: false))
        case .delete(let start, let count):
            guard count > 0 else { return }
            guard contains(start), contains(start.advanced(by: count - 1)) else {
                throw Self.outOfOrder("deletes \(start) and \(count - 1) after it", expected: nil)
            }
            var next = start
            var remaining = count
            while remaining > 0 {
                // The characters may lie in several runs (split since, or inserted apart).
                let (chunk, run, offset) = location(of: next)
                let taken = min(remaining, chunks[chunk].runs[run].length - offset)
                deleteRange(from: next, count: taken)
                next = next.advanced(by: taken)
                remaining -= taken
            }
        }
    }

    /// Places a run inserted elsewhere among the runs inserted concurrently at the same
    /// place (FugueMax, as the Fugue paper gives it, equal to Yjs with its right-origin
    /// rule): after its left origin, before its right origin, and among concurrent runs
    /// with the same origins in the order of their peers, so that runs typed at one place
    /// at once never interleave.
    private mutating func integrate(_ new: TextRun) {
        // Runs start at both origins, so every comparison below is of whole runs.
        if let left = new.originLeft {
            let (chunk, run, offset) = location(of: left)
            if offset + 1 < chunks[chunk].runs[run].length { split(chunk: chunk, run: run, at: offset + 1) }
        }
        if let right = new.originRight { splitBefore(right) }
        if let left = new.originLeft {
            // Nothing lies between the origins (typing, and every splice a store replays of
            // one context's: the common case): no concurrent run to order against, so the
            // run goes right after its left origin, where the scan below would put it
            // after finding every global index again.
            let (chunk, run, _) = location(of: left)
            let next = self.run(after: chunk, run).map { chunks[$0.chunk].runs[$0.run].id }
            if next == new.originRight { return insert(new, chunk: chunk, run: run + 1) }
        }
        let total = totalCount
        let left = new.originLeft.map(globalIndex(of:)) ?? -1
        let right = new.originRight.map(globalIndex(of:)) ?? total
        var destination = left + 1
        var scanning = false
        var index = left + 1
        var position = index < total ? runLocation(atGlobal: index) : nil
        while index < right, let (chunk, run) = position {
            let other = chunks[chunk].runs[run]
            let otherLeft = other.originLeft.map(globalIndex(of:)) ?? -1
            if otherLeft < left { break }
            if otherLeft == left {
                let otherRight = other.originRight.map(globalIndex(of:)) ?? total
                if otherRight < right {
                    scanning = true
                } else if otherRight == right {
                    if new.id.peer < other.id.peer { break }
                    scanning = false
                } else {
                    scanning = false
                }
            }
            index += other.length
            if !scanning { destination = index }
            position = self.run(after: chunk, run)
        }
        if destination >= total {
            let last = order.last ?? 0
            insert(new, chunk: last, run: chunks.isEmpty ? 0 : chunks[last].runs.count)
        } else {
            var (chunk, run) = runLocation(atGlobal: destination)!
            // At a chunk's start, the end of the chunk before: a continued run merges there.
            if run == 0, let previous = order.chunk(before: chunk) { (chunk, run) = (previous, chunks[previous].runs.count) }
            insert(new, chunk: chunk, run: run)
        }
    }

    /// The run that starts at the global index `index` (runs start there: see `integrate`).
    private func runLocation(atGlobal index: Int) -> (chunk: Int, run: Int)? {
        guard let (chunk, offset) = order.chunk(containing: index, .total) else { return nil }
        var remaining = offset
        for (run, item) in chunks[chunk].runs.enumerated() {
            if remaining == 0 { return (chunk, run) }
            remaining -= item.length
            precondition(remaining >= 0, "global index \(index) falls inside a run")
        }
        return nil
    }

    private static func outOfOrder(_ what: String, expected: TextElementID?) -> StrataError {
        let expectation = expected.map { " (the next character of its peer is \($0))" } ?? ""
        return StrataError(.corruptDocument, "A text operation \(what), which the text does not hold yet\(expectation): operations arrived out of causal order.")
    }
}
