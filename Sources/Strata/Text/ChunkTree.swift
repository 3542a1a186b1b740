import Foundation

/// The order of a text's chunks and their counts, as a balanced tree (a B+ tree whose leaves
/// are the chunks, named by their stable keys): the characters before a chunk, the chunk
/// holding the character at an index, the chunk after or before one, and a new chunk put
/// after one, each in O(log chunks) (docs/TEXT.md, "Runs").
///
/// It replaces running sums over an array of chunks (a Fenwick tree), which had to be
/// rebuilt, with every chunk's index, each time a chunk split: O(chunks) per split.
/// Here a split adds a leaf to one node, and a node that fills splits in two and adds
/// itself to its parent, up to the root.
///
/// All of it is arrays of values, so a text copied and changed copies it as it copies its
/// runs.
struct ChunkTree: Sendable {
    /// What the tree counts of each chunk.
    struct Counts: Sendable, Equatable {
        /// Characters shown.
        var visible = 0
        /// Characters held, tombstones included.
        var total = 0
        /// UTF-8 bytes of the characters shown.
        var visibleUTF8 = 0

        static func + (left: Counts, right: Counts) -> Counts {
            Counts(visible: left.visible + right.visible, total: left.total + right.total,
                   visibleUTF8: left.visibleUTF8 + right.visibleUTF8)
        }

        static func - (left: Counts, right: Counts) -> Counts {
            Counts(visible: left.visible - right.visible, total: left.total - right.total,
                   visibleUTF8: left.visibleUTF8 - right.visibleUTF8)
        }

        /// One of the three counts.
        @inline(__always)
        subscript(kind: Kind) -> Int {
            switch kind {
            case .visible: visible
            case .total: total
            case .visibleUTF8: visibleUTF8
            }
        }
    }

    /// Which count a question is about.
    enum Kind: Sendable { case visible, total, visibleUTF8 }

    /// A node: its children in order, chunk keys in a node just above the chunks, nodes
    /// otherwise; and the sums of its subtree.
    private struct Node: Sendable {
        var children: [Int]
        var sums: Counts
        /// The node above, -1 for the root.
        var parent: Int
        /// Whether the children are chunk keys.
        var holdsChunks: Bool
    }

    /// A node splits in two past this many children.
    static let fanout = 16

    private var nodes: [Node] = []
    private var root = -1
    /// Each chunk's counts and the node holding it, by chunk key (-1: no such chunk yet).
    private var chunkCounts: [Counts] = []
    private var chunkParent: [Int] = []

    /// The sums over every chunk.
    var sums: Counts { root < 0 ? Counts() : nodes[root].sums }

    /// The chunk's counts.
    func counts(of chunk: Int) -> Counts { chunkCounts[chunk] }

    /// The first chunk in order; nil when there is none.
    var first: Int? {
        guard root >= 0 else { return nil }
        var node = root
        while !nodes[node].holdsChunks { node = nodes[node].children[0] }
        return nodes[node].children[0]
    }

    /// The last chunk in order; nil when there is none.
    var last: Int? {
        guard root >= 0 else { return nil }
        var node = root
        while !nodes[node].holdsChunks { node = nodes[node].children[nodes[node].children.count - 1] }
        return nodes[node].children[nodes[node].children.count - 1]
    }

    /// The chunks in order.
    var inOrder: [Int] {
        var result: [Int] = []
        result.reserveCapacity(chunkParent.count)
        func visit(_ node: Int) {
            if nodes[node].holdsChunks {
                result += nodes[node].children
            } else {
                for child in nodes[node].children { visit(child) }
            }
        }
        if root >= 0 { visit(root) }
        return result
    }

    // MARK: Questions

    /// The count of `kind` over the chunks before `chunk`.
    func sum(_ kind: Kind, before chunk: Int) -> Int {
        var result = 0
        var child = chunk
        var node = chunkParent[chunk]
        var childIsChunk = true
        while node >= 0 {
            for sibling in nodes[node].children {
                if sibling == child { break }
                result += childIsChunk ? chunkCounts[sibling][kind] : nodes[sibling].sums[kind]
            }
            child = node
            node = nodes[node].parent
            childIsChunk = false
        }
        return result
    }

    /// The chunk in which the item at `index` (0-based, counting every chunk's items of
    /// `kind` in order) lies, and the item's index within it; nil when `index` is past the
    /// end. Chunks that count none are skipped.
    func chunk(containing index: Int, _ kind: Kind) -> (chunk: Int, offset: Int)? {
        guard index >= 0, root >= 0, index < nodes[root].sums[kind] else { return nil }
        var remaining = index
        var node = root
        while true {
            let holdsChunks = nodes[node].holdsChunks
            var found = -1
            for child in nodes[node].children {
                let count = holdsChunks ? chunkCounts[child][kind] : nodes[child].sums[kind]
                if remaining < count { found = child; break }
                remaining -= count
            }
            guard found >= 0 else { return nil }
            if holdsChunks { return (found, remaining) }
            node = found
        }
    }

    /// The chunk after `chunk` in order; nil for the last.
    func chunk(after chunk: Int) -> Int? {
        var child = chunk
        var node = chunkParent[chunk]
        while node >= 0 {
            let children = nodes[node].children
            let index = children.firstIndex(of: child)!
            if index + 1 < children.count {
                // The first chunk under the next sibling.
                if nodes[node].holdsChunks { return children[index + 1] }
                var below = children[index + 1]
                while !nodes[below].holdsChunks { below = nodes[below].children[0] }
                return nodes[below].children[0]
            }
            child = node
            node = nodes[node].parent
        }
        return nil
    }

    /// The chunk before `chunk` in order; nil for the first.
    func chunk(before chunk: Int) -> Int? {
        var child = chunk
        var node = chunkParent[chunk]
        while node >= 0 {
            let children = nodes[node].children
            let index = children.firstIndex(of: child)!
            if index > 0 {
                // The last chunk under the previous sibling.
                if nodes[node].holdsChunks { return children[index - 1] }
                var below = children[index - 1]
                while !nodes[below].holdsChunks { below = nodes[below].children[nodes[below].children.count - 1] }
                return nodes[below].children[nodes[below].children.count - 1]
            }
            child = node
            node = nodes[node].parent
        }
        return nil
    }

    // MARK: Changes

    /// Adds `delta` to a chunk's counts and to every sum above it.
    mutating func add(_ delta: Counts, to chunk: Int) {
        guard delta != Counts() else { return }
        chunkCounts[chunk] = chunkCounts[chunk] + delta
        var node = chunkParent[chunk]
        while node >= 0 {
            nodes[node].sums = nodes[node].sums + delta
            node = nodes[node].parent
        }
    }

    /// Puts the chunk keyed `chunk` (the next key: keys are handed out from 0 up), counting
    /// nothing yet, right after `previous`, or as the only chunk when `previous` is nil.
    /// - Precondition: `previous` is nil only for the first chunk.
    mutating func insert(_ chunk: Int, after previous: Int?) {
        precondition(chunk == chunkParent.count, "chunk keys are handed out in order")
        chunkCounts.append(Counts())
        guard let previous else {
            precondition(root < 0, "only the first chunk comes after none")
            nodes.append(Node(children: [chunk], sums: Counts(), parent: -1, holdsChunks: true))
            root = nodes.count - 1
            chunkParent.append(root)
            return
        }
        let node = chunkParent[previous]
        chunkParent.append(node)
        let index = nodes[node].children.firstIndex(of: previous)!
        nodes[node].children.insert(chunk, at: index + 1)
        splitIfFull(node)
    }

    /// Moves the second half of a node past ``fanout`` children into a new node after it,
    /// and so on up: a root that splits gets a new root above it.
    private mutating func splitIfFull(_ start: Int) {
        var node = start
        while nodes[node].children.count > Self.fanout {
            let half = nodes[node].children.count / 2
            let moved = Array(nodes[node].children[half...])
            nodes[node].children.removeSubrange(half...)
            let holdsChunks = nodes[node].holdsChunks
            let sibling = nodes.count
            var sums = Counts()
            for child in moved {
                if holdsChunks {
                    sums = sums + chunkCounts[child]
                    chunkParent[child] = sibling
                } else {
                    sums = sums + nodes[child].sums
                    nodes[child].parent = sibling
                }
            }
            nodes[node].sums = nodes[node].sums - sums
            let parent = nodes[node].parent
            nodes.append(Node(children: moved, sums: sums, parent: parent, holdsChunks: holdsChunks))
            if parent < 0 {
                nodes.append(Node(children: [node, sibling], sums: nodes[node].sums + sums, parent: -1, holdsChunks: false))
                root = nodes.count - 1
                nodes[node].parent = root
                nodes[sibling].parent = root
                return
            }
            let index = nodes[parent].children.firstIndex(of: node)!
            nodes[parent].children.insert(sibling, at: index + 1)
            node = parent
        }
    }
}
