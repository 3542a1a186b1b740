import Foundation

/// A text as a sequence CRDT: every character ever inserted, in document order, with its
/// identity, deleted ones kept as tombstones, so that replicas applying the same
/// operations in any causal order hold the same text (docs/TEXT.md).
///
/// The runs live in chunks of at most ``chunkCapacity``, each knowing how many characters it
/// holds and shows, so a position is found by skipping whole chunks; an index by peer finds
/// the chunk of an identity. Typing at the end of one's own run extends it in place.
///
/// Positions are in Unicode scalars (the unit Loro and Automerge count in); `String`'s
/// other views are converted at the API's edge.
package struct TextSequence: Sendable {
    /// A stretch of runs. Its counts are the tree's (``ChunkTree/counts(of:)``).
    struct Chunk: Sendable {
        var runs: [TextRun] = []
    }

    /// A chunk splits in two past this many runs.
    static let chunkCapacity = 64

    /// The chunks by key: keys are handed out from 0 up, never reused, and name a chunk for
    /// its life (the peer index names chunks by them); ``order`` puts them in order.
    private(set) var chunks: [Chunk] = []
    /// The chunks' order and counts.
    private(set) var order = ChunkTree()
    /// Per peer, where each of its runs starts, by first counter (``RunStarts``).
    var starts: [UInt64: RunStarts] = [:]
    /// Per peer, the counter its next character gets (every lower one is in the text).
    private(set) var nextCounter: [UInt64: UInt32] = [:]

    /// The characters shown.
    package private(set) var count = 0

    /// Characters this replica deleted and then put back as new ones (an undo of a
    /// deletion), per peer of the deleted ones, by first counter
    /// (``TextSequence/Restorations``). Kept where the restore was made, never encoded: a
    /// context whose undo history is restored reads them back from the log
    /// (`LoggedTextRestorations`, docs/TEXT.md "Undo").
    var restorations = Restorations()

    package init() {}

    /// The text.
    package var string: String {
        // Written as UTF-8 straight into a string of the size the runs count (see
        // `String.init(scalars:)`); a run whose byte count is its length is ASCII, a byte a
        // scalar. A save writes a long text's string this way (docs/TEXT.md, "Runs").
        String(unsafeUninitializedCapacity: order.sums.visibleUTF8) { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            var end = start
            for chunk in order.inOrder {
                for run in chunks[chunk].runs where !run.isDeleted {
                    end = run.scalars.withUnsafeBufferPointer { scalars in
                        UTF8Writer.write(scalars, to: end, isASCII: run.utf8Count == scalars.count)
                    }
                }
            }
            return end - start
        }
    }

    /// The identities of the shown characters, in order.
    package func shownIdentities() -> [TextElementID] {
        var result: [TextElementID] = []
        result.reserveCapacity(count)
        for chunk in order.inOrder {
            for run in chunks[chunk].runs where !run.isDeleted { result += (0..<run.length).map { run.id.advanced(by: $0) } }
        }
        return result
    }

    /// The number of runs held, tombstones included (what the text costs in memory, beside
    /// its characters).
    package var runCount: Int { chunks.reduce(0) { $0 + $1.runs.count } }

    /// Whether `id` is the character right after `previous` in the text's order
    /// (tombstones count: nothing at all lies between them).
    func holds(_ id: TextElementID, rightAfter previous: TextElementID) -> Bool {
        guard contains(previous), contains(id) else { return false }
        let (chunk, run, offset) = location(of: previous)
        if offset + 1 < chunks[chunk].runs[run].length { return id == previous.advanced(by: 1) }
        guard let next = self.run(after: chunk, run) else { return false }
        return chunks[next.chunk].runs[next.run].id == id
    }

    /// Whether this text and `other`, both holding every character of some replica of one
    /// text (this one's a superset of `other`'s, or the other way round), hold the same
    /// characters in the same states: the same characters inserted — the same next counter
    /// per peer, as each peer's characters arrive in order — and as many shown. Deletions
    /// only ever hide characters, so with the same characters the one with more deleted
    /// shows fewer. The order then agrees too (FugueMax places a character by its origins
    /// alone, docs/TEXT.md "Merging"). O(peers).
    func holdsSameCharacters(as other: TextSequence) -> Bool {
        count == other.count && totalCount == other.totalCount && nextCounter == other.nextCounter
            && order.sums.visibleUTF8 == other.order.sums.visibleUTF8
    }

    /// Whether the peer's character `id` has been applied.
    package func contains(_ id: TextElementID) -> Bool { id.counter < nextCounter[id.peer] ?? 0 }

    // MARK: Finding runs

    /// The characters held, tombstones included.
    var totalCount: Int { order.sums.total }

    /// The runs in order (for encoding).
    var runsInOrder: [TextRun] { order.inOrder.flatMap { chunks[$0].runs } }

    /// The chunk, run and offset of character `id`, which the text holds.
    func location(of id: TextElementID) -> (chunk: Int, run: Int, offset: Int) {
        let chunk = starts[id.peer]!.last(atOrBefore: id.counter).chunk
        let run = chunks[chunk].runs.firstIndex { $0.contains(id) }!
        return (chunk, run, chunks[chunk].runs[run].offset(of: id))
    }

    /// The position of character `id` among all characters, tombstones included.
    func globalIndex(of id: TextElementID) -> Int {
        let (chunk, run, offset) = location(of: id)
        return globalIndex(chunk: chunk, run: run) + offset
    }

    /// The position of a run's first character among all characters.
    func globalIndex(chunk: Int, run: Int) -> Int {
        var index = order.sum(.total, before: chunk)
        for earlier in chunks[chunk].runs[..<run] { index += earlier.length }
        return index
    }

    /// The run after (`chunk`, `run`), if any.
    func run(after chunk: Int, _ run: Int) -> (chunk: Int, run: Int)? {
        if run + 1 < chunks[chunk].runs.count { return (chunk, run + 1) }
        var next = order.chunk(after: chunk)
        while let candidate = next {
            if !chunks[candidate].runs.isEmpty { return (candidate, 0) }
            next = order.chunk(after: candidate)
        }
        return nil
    }

    // MARK: Changing runs

    /// Splits the run holding `id` so that a run starts at `id`; returns the location of
    /// that run.
    @discardableResult
    mutating func splitBefore(_ id: TextElementID) -> (chunk: Int, run: Int) {
        let (chunk, run, offset) = location(of: id)
        guard offset > 0 else { return (chunk, run) }
        split(chunk: chunk, run: run, at: offset)
        return normalized(chunk: chunk, run: run + 1)
    }

    /// Splits a run before its character at `offset` (0 < offset < length), in place.
    mutating func split(chunk: Int, run: Int, at offset: Int) {
        let rest = chunks[chunk].runs[run].split(at: offset)
        chunks[chunk].runs.insert(rest, at: run + 1)
        insertStart(of: rest, chunk: chunk)
        splitChunkIfFull(chunk)
    }

    /// A (chunk, run) position after a chunk split may have moved it into the next chunk.
    func normalized(chunk: Int, run: Int) -> (chunk: Int, run: Int) {
        var (chunk, run) = (chunk, run)
        while run >= chunks[chunk].runs.count, let next = order.chunk(after: chunk) {
            run -= chunks[chunk].runs.count
            chunk = next
        }
        return (chunk, run)
    }

    /// Inserts a run before the run at (`chunk`, `run`) (or at the chunk's end), merging it
    /// into the run before when it continues that one.
    mutating func insert(_ new: TextRun, chunk: Int, run: Int) {
        if chunks.isEmpty { addChunk(after: nil) }
        if run > 0, chunks[chunk].runs[run - 1].isContinued(by: new) {
            chunks[chunk].runs[run - 1].append(new)
        } else {
            chunks[chunk].runs.insert(new, at: run)
            insertStart(of: new, chunk: chunk)
        }
        order.add(ChunkTree.Counts(visible: new.visibleLength, total: new.length, visibleUTF8: new.utf8Count), to: chunk)
        count += new.visibleLength
        noteApplied(new.id, count: new.length)
        splitChunkIfFull(chunk)
    }

    /// Marks the run at (`chunk`, `run`) deleted (it is not).
    mutating func markDeleted(chunk: Int, run: Int) {
        let length = chunks[chunk].runs[run].length
        let utf8 = chunks[chunk].runs[run].utf8Count
        chunks[chunk].runs[run].markDeleted()
        order.add(ChunkTree.Counts(visible: -length, total: 0, visibleUTF8: -utf8), to: chunk)
        count -= length
    }

    /// Records that the peer's characters up to `id + count` are in the text.
    mutating func noteApplied(_ id: TextElementID, count: Int) {
        let next = id.counter &+ UInt32(count)
        if next > nextCounter[id.peer] ?? 0 { nextCounter[id.peer] = next }
    }

    /// Adds an empty chunk after `previous` (nil: the first chunk); returns its key.
    @discardableResult
    private mutating func addChunk(after previous: Int?) -> Int {
        let key = chunks.count
        chunks.append(Chunk())
        order.insert(key, after: previous)
        return key
    }

    /// Adds a run's start to its peer's index.
    private mutating func insertStart(of run: TextRun, chunk key: Int) {
        starts[run.id.peer, default: RunStarts()].insert(RunStart(counter: run.id.counter, chunk: key))
    }

    /// Moves the second half of a chunk past ``chunkCapacity`` runs into a new chunk after it:
    /// O(log chunks) for the tree, O(runs moved) for the index.
    private mutating func splitChunkIfFull(_ chunk: Int) {
        guard chunks[chunk].runs.count > Self.chunkCapacity else { return }
        let half = chunks[chunk].runs.count / 2
        let moved = Array(chunks[chunk].runs[half...])
        chunks[chunk].runs.removeSubrange(half...)
        let key = addChunk(after: chunk)
        var counts = ChunkTree.Counts()
        for run in moved {
            counts = counts + ChunkTree.Counts(visible: run.visibleLength, total: run.length, visibleUTF8: run.utf8Count)
            repoint(run.id, to: key)
        }
        chunks[key].runs = moved
        order.add(ChunkTree.Counts() - counts, to: chunk)
        order.add(counts, to: key)
    }

    /// Points the index entry of the run starting at `id` to another chunk.
    private mutating func repoint(_ id: TextElementID, to key: Int) {
        starts[id.peer]!.repoint(id.counter, to: key)
    }
}
