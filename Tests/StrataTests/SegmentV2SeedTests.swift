import Foundation
import Testing
@testable import Strata

/// The segment fuzz target's v2 seeds (Tests/Fuzz/Corpus/segment/raw-v2-N.bin and
/// frame-v2-N.lz4) are the v1 seeds raw-N.bin written again by today's encoder: this checks
/// that they still are, and writes them when STRATA_WRITE_FUZZ_SEEDS=1 is set.
@Suite struct SegmentV2FuzzSeeds {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fuzz/Corpus/segment", isDirectory: true).standardizedFileURL

    @Test func theV2SeedsAreTheV1SeedsWrittenAsV2() throws {
        let model = ManagedObjectModel.employeesExample()
        let write = ProcessInfo.processInfo.environment["STRATA_WRITE_FUZZ_SEEDS"] == "1"
        var checked = 0
        var inserts: [ChangeOperation] = [], others: [ChangeOperation] = []
        for n in 1...8 {
            let v1 = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("raw-\(n).bin")))
            let segment = try SegmentDecoder.decode(v1, model: model, storeTag: 1, sequenceHint: nil)
            let v2 = try SegmentEncoder.encode(segment, model: model)
            let raw = Self.folder.appendingPathComponent("raw-v2-\(n).bin")
            let frame = Self.folder.appendingPathComponent("frame-v2-\(n).lz4")
            if write {
                try Data(v2).write(to: raw)
                if n % 4 == 2 { try Data(LZ4Frame.compress(v2)).write(to: frame) }
            }
            #expect([UInt8](try Data(contentsOf: raw)) == v2, "raw-v2-\(n).bin")
            #expect(try SegmentDecoder.decode(v2, model: model, storeTag: 1, sequenceHint: nil) == segment)
            if FileManager.default.fileExists(atPath: frame.path) {
                let stored = [UInt8](try Data(contentsOf: frame))
                #expect(try SegmentCodec.decodeCompressed(stored, model: model, storeTag: 1, sequenceHint: nil) == segment)
            }
            for group in segment.groups {
                for operation in group.operations {
                    if case .insert = operation { inserts.append(operation) } else { others.append(operation) }
                }
            }
            checked += 1
        }
        #expect(checked == 8)
        // The saves of the base document insert one or two objects each, so their v2 bodies
        // hold few runs: one more seed puts every insert of the seeds in runs (by entity,
        // in their order) between the other operations.
        let sorted = inserts.enumerated().sorted {
            ($0.element.objectID.entity.index, $0.offset) < ($1.element.objectID.entity.index, $1.offset)
        }.map(\.element)
        let half = others.count / 2
        let runs = Segment(sequence: 9, timestamp: Date(timeIntervalSince1970: 1_750_000_000), groups: [
            SegmentGroup(id: 40, kind: .batch, revertsGroup: nil, actionName: "Runs",
                         operations: Array(others[..<half]) + sorted + Array(others[half...])),
        ])
        let v2 = try SegmentEncoder.encode(runs, model: model)
        let raw = Self.folder.appendingPathComponent("raw-v2-runs.bin")
        let frame = Self.folder.appendingPathComponent("frame-v2-runs.lz4")
        if write {
            try Data(v2).write(to: raw)
            try Data(LZ4Frame.compress(v2)).write(to: frame)
        }
        #expect([UInt8](try Data(contentsOf: raw)) == v2)
        #expect(try SegmentCodec.decodeCompressed([UInt8](try Data(contentsOf: frame)), model: model, storeTag: 1,
                                                  sequenceHint: 9) == runs)
        #expect(v2.count < (try SegmentEncoder.encode(runs, model: model, version: 1)).count, "no insert run written")
    }
}
