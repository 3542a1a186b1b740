import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// The bucketed index of one peer's run starts (`TextSequence.RunStarts`, docs/TEXT.md
/// "Runs") against a plain sorted array: inserts in every order, lookups and repoints.
@Suite struct TextRunStartsTests {
    /// The last of `starts` (sorted) at or before `counter`.
    private func expectedLast(_ starts: [TextSequence.RunStart], atOrBefore counter: UInt32) -> TextSequence.RunStart? {
        starts.last { $0.counter <= counter }
    }

    @Test(arguments: ["ascending", "descending", "random", "typing"])
    func findsWhatASortedArrayFinds(order: String) {
        var random = SeededGenerator(seed: testSeed("TextRunStarts.\(order)"))
        // Distinct counters, far enough apart for probes between them.
        var counters = (0..<3_000).map { UInt32($0 * 3 + 1) }
        switch order {
        case "descending": counters.reverse()
        case "random": counters.shuffle(using: &random)
        case "typing":
            // Mostly the next counter, now and then one inside what came before (a split).
            var typed: [UInt32] = []
            var pending = Set(counters)
            var next = 0
            while !pending.isEmpty {
                if Bool.random(using: &random), next < counters.count {
                    typed.append(counters[next]); pending.remove(counters[next]); next += 1
                } else if let any = pending.filter({ $0 < (next < counters.count ? counters[next] : .max) }).randomElement(using: &random) {
                    typed.append(any); pending.remove(any)
                } else if next < counters.count {
                    typed.append(counters[next]); pending.remove(counters[next]); next += 1
                }
            }
            counters = typed
        default: break
        }
        var index = TextSequence.RunStarts()
        var plain: [TextSequence.RunStart] = []
        for (step, counter) in counters.enumerated() {
            let start = TextSequence.RunStart(counter: counter, chunk: Int(counter) % 17)
            index.insert(start)
            plain.insert(start, at: plain.firstIndex { $0.counter > counter } ?? plain.count)
            if step % 97 == 0, let moved = plain.indices.randomElement(using: &random) {
                plain[moved].chunk += 1000
                index.repoint(plain[moved].counter + UInt32.random(in: 0...2, using: &random), to: plain[moved].chunk)
            }
            if step % 50 == 0 || step == counters.count - 1 {
                #expect(index.all == plain, "after \(step + 1) inserts")
                for _ in 0..<20 {
                    let probe = UInt32.random(in: plain[0].counter...(plain[plain.count - 1].counter + 3), using: &random)
                    #expect(index.last(atOrBefore: probe) == expectedLast(plain, atOrBefore: probe), "counter \(probe)")
                }
            }
        }
    }

    /// A text typed with splits everywhere finds every character's run (the index stays in
    /// step with chunk splits).
    @Test func aTextFindsEveryCharacterAfterManySplits() throws {
        var random = SeededGenerator(seed: testSeed("TextRunStarts.text"))
        var text = TextSequence()
        var model: [Unicode.Scalar] = []
        for _ in 0..<4_000 {
            let position = Int.random(in: 0...model.count, using: &random)
            let scalar = Unicode.Scalar(UInt8.random(in: 97...122, using: &random))
            _ = text.insert([scalar], at: position, peer: 7)
            model.insert(scalar, at: position)
            if Int.random(in: 0..<5, using: &random) == 0, !model.isEmpty {
                let at = Int.random(in: 0..<model.count, using: &random)
                _ = text.delete(at: at, length: 1)
                model.remove(at: at)
            }
        }
        #expect(text.string == String(String.UnicodeScalarView(model)))
        for counter in UInt32(0)..<4_000 {
            let id = TextElementID(peer: 7, counter: counter)
            let (chunk, run, offset) = text.location(of: id)
            #expect(text.chunks[chunk].runs[run].id.advanced(by: offset) == id)
        }
        #expect(text.starts[7]!.all.count == text.chunks.reduce(0) { $0 + $1.runs.count })
    }
}
