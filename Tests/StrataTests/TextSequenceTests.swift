import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The text CRDT (docs/TEXT.md): local edits against a plain array of scalars, the real
/// editing traces against their final text, and replicas exchanging operations in random
/// orders converging without losing or interleaving anyone's typing.
@Suite struct TextSequenceTests {
    /// One patch of a trace: at `position`, delete `deleted` scalars, insert `inserted`.
    struct Patch {
        var position: Int
        var deleted: Int
        var inserted: [Unicode.Scalar]
    }

    /// A trace from Fixtures/editing-traces (gzipped JSON; README.md there has its source
    /// and licence).
    static func trace(_ name: String) throws -> (patches: [Patch], end: String) {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json.gz", subdirectory: "Fixtures/editing-traces"))
        let (status, output, error) = try runProcess("/usr/bin/gzip", ["-dc", url.path])
        #expect(status == 0, "\(error)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        var patches: [Patch] = []
        for transaction in try #require(json["txns"] as? [[String: Any]]) {
            for patch in try #require(transaction["patches"] as? [[Any]]) {
                let text = try #require(patch[2] as? String)
                patches.append(Patch(position: try #require(patch[0] as? Int), deleted: try #require(patch[1] as? Int),
                                     inserted: Array(text.unicodeScalars)))
            }
        }
        return (patches, try #require(json["endContent"] as? String))
    }

    @Test(arguments: ["automerge-paper", "seph-blog1"])
    func aTraceAppliedKeystrokeByKeystrokeGivesItsFinalText(_ name: String) throws {
        let (patches, end) = try Self.trace(name)
        var text = TextSequence()
        var replica = TextSequence()
        var operations: [TextOperation] = []
        for patch in patches {
            if patch.deleted > 0 { operations += text.delete(at: patch.position, length: patch.deleted) }
            if let insert = text.insert(patch.inserted, at: patch.position, peer: 1) { operations.append(insert) }
        }
        #expect(text.string == end)
        #expect(text.count == end.unicodeScalars.count)
        // Typing continues runs: far fewer runs than keystrokes.
        #expect(text.runCount < patches.count / 2, "\(text.runCount) runs for \(patches.count) patches")
        // Another replica applying the operations gets the same text.
        for operation in operations { try replica.apply(operation) }
        #expect(replica.string == end)
        // Applying them again changes nothing.
        for operation in operations.prefix(1_000) { try replica.apply(operation) }
        #expect(replica.string == end)
    }

    @Test func localEditsMatchAnArrayOfScalars() {
        var random = SeededGenerator(seed: testSeed("TextSequence.local"))
        var text = TextSequence()
        var model: [Unicode.Scalar] = []
        let alphabet = Array("abcdefghé😀 \n".unicodeScalars)
        for _ in 0..<5_000 {
            if model.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
                let position = Int.random(in: 0...model.count, using: &random)
                let inserted = (0..<Int.random(in: 1...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
                _ = text.insert(inserted, at: position, peer: 7)
                model.insert(contentsOf: inserted, at: position)
            } else {
                let position = Int.random(in: 0..<model.count, using: &random)
                let length = Int.random(in: 1...min(5, model.count - position), using: &random)
                _ = text.delete(at: position, length: length)
                model.removeSubrange(position..<(position + length))
            }
            #expect(text.count == model.count)
            // Where a position lies in the string's UTF-8, from the text's counts.
            let position = Int.random(in: 0...model.count, using: &random)
            let bytes = model[..<position].reduce(0) { $0 + UTF8.width($1) }
            #expect(text.utf8Offset(ofShown: position) == bytes, "position \(position)")
        }
        var expected = String.UnicodeScalarView()
        expected.append(contentsOf: model)
        #expect(text.string == String(expected))
    }

    /// Two people type a word at the same place at once: both words survive whole, in the
    /// same order on both replicas.
    @Test func concurrentWordsAtOnePlaceDoNotInterleave() throws {
        var a = TextSequence()
        var b = TextSequence()
        let base = a.insert(Array("Hello world".unicodeScalars), at: 0, peer: 1)!
        try b.apply(base)
        var fromA: [TextOperation] = []
        var fromB: [TextOperation] = []
        for (offset, scalar) in " dear".unicodeScalars.enumerated() { fromA.append(a.insert([scalar], at: 5 + offset, peer: 1)!) }
        for (offset, scalar) in " big".unicodeScalars.enumerated() { fromB.append(b.insert([scalar], at: 5 + offset, peer: 2)!) }
        for operation in fromB { try a.apply(operation) }
        for operation in fromA { try b.apply(operation) }
        #expect(a.string == b.string)
        #expect(a.string == "Hello dear big world" || a.string == "Hello big dear world")
    }

    /// 2–8 replicas make random splices and exchange them in random orders (each replica
    /// receives every other's operations in the order they were made, interleaved at
    /// random, and after what their maker had seen — causal order, which a log gives): all
    /// converge, and every character inserted and never deleted is there.
    @Test(arguments: [2, 3, 5, 8])
    func replicasConvergeWhateverTheOrder(_ replicaCount: Int) throws {
        var random = SeededGenerator(seed: testSeed("TextSequence.converge.\(replicaCount)"))
        var replicas = Array(repeating: TextSequence(), count: replicaCount)
        // Each operation with what its maker had received from each replica when making it.
        var logs = Array(repeating: [(operation: TextOperation, seen: [Int])](), count: replicaCount)
        var received = Array(repeating: Array(repeating: 0, count: replicaCount), count: replicaCount)
        var inserted: [TextElementID: Unicode.Scalar] = [:]
        var deleted = Set<TextElementID>()
        let alphabet = Array("xyzw".unicodeScalars)
        for _ in 0..<1_500 {
            let who = Int.random(in: 0..<replicaCount, using: &random)
            if Int.random(in: 0..<4, using: &random) == 0 {
                // Take in a few operations of another replica, in its order.
                let from = Int.random(in: 0..<replicaCount, using: &random)
                guard from != who else { continue }
                let upTo = min(logs[from].count, received[who][from] + Int.random(in: 1...6, using: &random))
                while received[who][from] < upTo {
                    let (operation, seen) = logs[from][received[who][from]]
                    guard seen.indices.allSatisfy({ $0 == who || received[who][$0] >= seen[$0] }) else { break }
                    try replicas[who].apply(operation)
                    received[who][from] += 1
                }
                continue
            }
            let peer = UInt64(who + 1)
            let count = replicas[who].count
            if count > 0, Int.random(in: 0..<3, using: &random) == 0 {
                let position = Int.random(in: 0..<count, using: &random)
                let length = Int.random(in: 1...min(3, count - position), using: &random)
                let operations = replicas[who].delete(at: position, length: length)
                for case .delete(let start, let n) in operations { for k in 0..<n { deleted.insert(start.advanced(by: k)) } }
                logs[who] += operations.map { ($0, received[who]) }
            } else {
                let scalars = (0..<Int.random(in: 1...3, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
                let operation = replicas[who].insert(scalars, at: Int.random(in: 0...count, using: &random), peer: peer)!
                if case .insert(let id, _, _, _) = operation {
                    for (k, scalar) in scalars.enumerated() { inserted[id.advanced(by: k)] = scalar }
                }
                logs[who].append((operation, received[who]))
            }
        }
        // Everyone takes in everything, then all hold one text.
        var delivered = true
        while delivered {
            delivered = false
            for who in 0..<replicaCount {
                for from in 0..<replicaCount where from != who {
                    while received[who][from] < logs[from].count {
                        let (operation, seen) = logs[from][received[who][from]]
                        guard seen.indices.allSatisfy({ $0 == who || received[who][$0] >= seen[$0] }) else { break }
                        try replicas[who].apply(operation)
                        received[who][from] += 1
                        delivered = true
                    }
                }
            }
        }
        for who in 0..<replicaCount { #expect(received[who].indices.allSatisfy { $0 == who || received[who][$0] == logs[$0].count }) }
        let text = replicas[0].string
        for replica in replicas { #expect(replica.string == text) }
        // Exactly the characters inserted and not deleted, each with the scalar it was typed as.
        let survivors = inserted.filter { !deleted.contains($0.key) }
        let shown = replicas[0].shownIdentities()
        #expect(Set(shown) == Set(survivors.keys))
        var rebuilt = String.UnicodeScalarView()
        rebuilt.append(contentsOf: shown.map { inserted[$0]! })
        #expect(String(rebuilt) == text)
    }

    @Test func anOperationNamingAnUnknownCharacterIsRefused() {
        var text = TextSequence()
        #expect(throws: StrataError.self) {
            try text.apply(.insert(id: TextElementID(peer: 3, counter: 0), originLeft: TextElementID(peer: 9, counter: 4),
                                   originRight: nil, scalars: ["a"]))
        }
        #expect(throws: StrataError.self) { try text.apply(.delete(start: TextElementID(peer: 9, counter: 0), count: 2)) }
        #expect(text.count == 0)
    }

    /// The chunk tree against a list of chunks added up, through many splits of its nodes,
    /// with empty chunks among them: sums before a chunk, the chunk of an index, the chunks
    /// after and before one, and the order.
    @Test func chunkTreeFindsWhatAddingUpFinds() {
        var random = SeededGenerator(seed: testSeed("TextSequence.counts"))
        var tree = ChunkTree()
        var order: [Int] = []
        var counts: [ChunkTree.Counts] = []
        let kinds: [ChunkTree.Kind] = [.visible, .total, .visibleUTF8]
        for step in 0..<2_000 {
            if order.isEmpty || Int.random(in: 0..<3, using: &random) == 0 {
                // A new chunk after a random one (mostly near the last new one, as typing does).
                let key = counts.count
                let previous: Int? = order.isEmpty ? nil : order[Int.random(in: 0..<order.count, using: &random)]
                tree.insert(key, after: previous)
                counts.append(ChunkTree.Counts())
                order.insert(key, at: previous.map { order.firstIndex(of: $0)! + 1 } ?? 0)
            }
            let chunk = order[Int.random(in: 0..<order.count, using: &random)]
            let total = Int.random(in: -counts[chunk].total...5, using: &random)
            let visible = Int.random(in: -counts[chunk].visible...max(-counts[chunk].visible, min(total + counts[chunk].total - counts[chunk].visible, 5)), using: &random)
            let delta = ChunkTree.Counts(visible: visible, total: total, visibleUTF8: 2 * visible)
            counts[chunk] = counts[chunk] + delta
            tree.add(delta, to: chunk)
            guard step % 7 == 0 else { continue }
            #expect(tree.inOrder == order)
            #expect(tree.first == order.first && tree.last == order.last)
            let probe = Int.random(in: 0..<order.count, using: &random)
            #expect(tree.chunk(after: order[probe]) == (probe + 1 < order.count ? order[probe + 1] : nil))
            #expect(tree.chunk(before: order[probe]) == (probe > 0 ? order[probe - 1] : nil))
            for kind in kinds {
                #expect(tree.sum(kind, before: order[probe]) == order[..<probe].reduce(0) { $0 + counts[$1][kind] })
                let whole = order.reduce(0) { $0 + counts[$1][kind] }
                #expect(tree.sums[kind] == whole)
                let index = Int.random(in: 0...whole, using: &random)
                var remaining = index
                var expected: (chunk: Int, offset: Int)?
                for key in order {
                    if remaining < counts[key][kind] { expected = (key, remaining); break }
                    remaining -= counts[key][kind]
                }
                let found = tree.chunk(containing: index, kind)
                #expect(found?.chunk == expected?.chunk && found?.offset == expected?.offset, "index \(index) of \(kind)")
            }
        }
        #expect(order.count > ChunkTree.fanout * ChunkTree.fanout, "the tree grew past two levels")
    }

    /// Restorations arriving in any order (an undo walks back, a redo forward) find, for
    /// every deleted character, the one put back for it — across many buckets.
    @Test func restorationsFindTheCharacterPutBackWhateverTheOrder() {
        var random = SeededGenerator(seed: testSeed("TextSequence.restorations"))
        // Disjoint spans of peer 9's counters, each put back as peer 4's characters.
        var spans: [(deleted: UInt32, count: Int, restored: UInt32)] = []
        var counter: UInt32 = 0
        for index in 0..<2_000 {
            counter += UInt32(Int.random(in: 0...3, using: &random))
            let count = Int.random(in: 1...4, using: &random)
            spans.append((counter, count, UInt32(index * 10)))
            counter += UInt32(count)
        }
        var restorations = TextSequence.Restorations()
        for span in spans.shuffled(using: &random) {
            restorations.add(deleted: TextElementID(peer: 9, counter: span.deleted), count: span.count,
                             restored: TextElementID(peer: 4, counter: span.restored))
        }
        for probe in 0..<counter {
            let expected = spans.first { probe >= $0.deleted && probe < $0.deleted + UInt32($0.count) }
                .map { TextElementID(peer: 4, counter: $0.restored + (probe - $0.deleted)) }
            #expect(restorations.restored(TextElementID(peer: 9, counter: probe)) == expected, "counter \(probe)")
        }
        #expect(restorations.restored(TextElementID(peer: 8, counter: 0)) == nil)
    }
}
