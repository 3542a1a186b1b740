import Foundation

/// Running sums over the chunks of a text (a Fenwick tree): the characters before a chunk,
/// and the chunk holding the character at an index, in O(log chunks), where adding up
/// every chunk before was O(chunks) per keystroke (docs/TEXT.md, "Runs").
struct ChunkCounts: Sendable {
    /// `tree[i]` sums the counts of chunks `i - (i & -i)` ..< `i` (1-based).
    private var tree: [Int]

    /// Sums over `counts`, in O(n).
    init(_ counts: [Int]) {
        tree = [0] + counts
        for index in 1..<tree.count {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    /// The number of chunks.
    var count: Int { tree.count - 1 }

    /// Adds `delta` to chunk `chunk`'s count.
    mutating func add(_ delta: Int, at chunk: Int) {
        guard delta != 0 else { return }
        var index = chunk + 1
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// The sum of the counts of the chunks before `chunk`.
    func sum(before chunk: Int) -> Int {
        var result = 0
        var index = chunk
        while index > 0 {
            result += tree[index]
            index -= index & -index
        }
        return result
    }

    /// The chunk in which the item at `index` (0-based, counting every chunk's items in
    /// order) lies, and the item's index within it; nil when `index` is past the end.
    func chunk(containing index: Int) -> (chunk: Int, offset: Int)? {
        guard index >= 0 else { return nil }
        var position = 0
        var remaining = index
        var step = 1
        while step * 2 < tree.count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next < tree.count, tree[next] <= remaining {
                position = next
                remaining -= tree[next]
            }
            step /= 2
        }
        return position < count ? (position, remaining) : nil
    }
}
