import Foundation
import OrderedCollections
import Testing
@testable import Strata

/// Seeded mutation fuzzing: mutated and truncated variants of valid segments must decode
/// or throw `.corruptSegment`, never crash. Each run prints its seed; replay a failure with
/// STRATA_FUZZ_SEED=<seed>. Seeds that once found a bug belong in `regressionSeeds`.
@Suite struct SegmentFuzzing {
    static let regressionSeeds: [UInt64] = [1, 0xDEAD_BEEF]
    static let iterationsPerSeed = 5_000

    static func runSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"], let seed = UInt64(text) { return seed }
        return explorationSeed()
    }

    /// A random but valid segment over the fixture model.
    static func randomSegment(_ model: ManagedObjectModel, using rng: inout SeededGenerator) -> Segment {
        let F = SegmentFixture.self
        func employee() -> ManagedObjectID { F.id(model, "Employee", Int64.random(in: -3...300, using: &rng)) }
        func department() -> ManagedObjectID { F.id(model, "Department", Int64.random(in: 1...5, using: &rng)) }
        func employeeValues() -> [PropertyValue] {
            var values = F.employeeValues(model, key: Int64.random(in: 1...9, using: &rng))
            for slot in values.indices where Bool.random(using: &rng) {
                values[slot] = slot == F.recentDepartments ? .objects([]) : .null
            }
            values[F.salary] = .integer(Int64.random(in: .min ... .max, using: &rng))
            values[F.name] = .string(String(repeating: "é", count: Int.random(in: 0...40, using: &rng)))
            return values
        }
        var groups: [SegmentGroup] = []
        for groupIndex in 0..<Int.random(in: 1...4, using: &rng) {
            var operations: [ChangeOperation] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                switch Int.random(in: 0...4, using: &rng) {
                case 0: operations.append(.insert(employee(), values: employeeValues()))
                case 1: operations.append(.delete(employee(), values: employeeValues()))
                case 2:
                    operations.append(.update(employee(), changes: [
                        SlotChange(slot: F.bonus, old: .decimal(Decimal(Int.random(in: -999...999, using: &rng)) / 100),
                                   new: .null),
                        SlotChange(slot: F.rating, old: .double(Double.random(in: -1e9...1e9, using: &rng)), new: .double(0)),
                        SlotChange(slot: F.department, old: .null, new: .object(department())),
                    ]))
                case 3:
                    operations.append(.update(department(), changes: [
                        SlotChange(slot: F.employees, old: .objects([]), new: .objects(OrderedSet([employee(), employee()]))),
                    ]))
                default:
                    operations.append(.relate(department(), slot: F.employees, added: [employee()], removed: [employee()]))
                }
            }
            groups.append(SegmentGroup(id: UInt64(groupIndex * 7), kind: ChangeGroupKind.allCases.randomElement(using: &rng)!,
                                       revertsGroup: Bool.random(using: &rng) ? nil : UInt64(groupIndex),
                                       actionName: "Action \(groupIndex)", operations: operations))
        }
        return Segment(sequence: UInt64.random(in: 1...1_000_000, using: &rng),
                       timestamp: Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &rng))),
                       groups: groups)
    }

    /// One random mutation: flip bits, overwrite, insert, delete, duplicate or truncate.
    static func mutate(_ bytes: [UInt8], using rng: inout SeededGenerator) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            guard !result.isEmpty else { return result }
            let position = Int.random(in: 0..<result.count, using: &rng)
            switch Int.random(in: 0...6, using: &rng) {
            case 0: result[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
            case 1: result[position] = UInt8.random(in: 0...255, using: &rng)
            case 2: result[position] = [0x00, 0x7F, 0x80, 0xFF][Int.random(in: 0...3, using: &rng)]
            case 3: result.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case 4: result.removeSubrange(position..<min(result.count, position + Int.random(in: 1...8, using: &rng)))
            case 5:
                let end = min(result.count, position + Int.random(in: 1...16, using: &rng))
                result.insert(contentsOf: result[position..<end], at: Int.random(in: 0...result.count, using: &rng))
            default: result.removeSubrange(position...)
            }
        }
        return result
    }

    @Test(arguments: [runSeed()] + regressionSeeds)
    func mutatedBodiesDecodeOrThrowButNeverCrash(seed: UInt64) throws {
        print("SegmentFuzzing seed: \(seed) (replay with STRATA_FUZZ_SEED=\(seed))")
        let model = try SegmentFixture.makeModel()
        var rng = SeededGenerator(seed: seed)
        var bases = [try SegmentEncoder.encode(SegmentFixture.goldenSegment(model), model: model)]
        for _ in 0..<8 { bases.append(try SegmentEncoder.encode(Self.randomSegment(model, using: &rng), model: model)) }
        for base in bases {
            let decoded = try SegmentDecoder.decode(base, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: nil)
            #expect(try SegmentEncoder.encode(decoded, model: model) == base, "a random segment does not round trip")
        }
        var rejected = 0
        var accepted = 0
        for iteration in 0..<Self.iterationsPerSeed {
            let mutant = Self.mutate(bases[iteration % bases.count], using: &rng)
            do {
                let segment = try SegmentDecoder.decode(mutant, model: model, storeTag: SegmentFixture.storeTag,
                                                        sequenceHint: nil)
                accepted += 1
                // Whatever decodes must be a segment the encoder accepts.
                _ = try SegmentEncoder.encode(segment, model: model)
            } catch let error as StrataError {
                #expect(error.code == .corruptSegment, "seed \(seed) iteration \(iteration): \(error)")
                // Located in the body; the segment is named once its sequence was read ("?" before).
                #expect(error.context.offset != nil && error.context.layer == .segmentBody && error.message.hasPrefix("Segment "))
                rejected += 1
            }
        }
        #expect(rejected > Self.iterationsPerSeed / 2, "the mutations should mostly be caught (accepted \(accepted))")
    }

    @Test(arguments: [runSeed()] + regressionSeeds)
    func mutatedFramesDecompressOrThrowButNeverCrash(seed: UInt64) throws {
        print("SegmentFuzzing frame seed: \(seed) (replay with STRATA_FUZZ_SEED=\(seed))")
        let model = try SegmentFixture.makeModel()
        var rng = SeededGenerator(seed: seed)
        let frames = [try SegmentCodec.compressedBody(SegmentFixture.goldenSegment(model), model: model),
                      try SegmentCodec.compressedBody(Self.randomSegment(model, using: &rng), model: model)]
        var rejected = 0
        for iteration in 0..<2_000 {
            let mutant = Self.mutate(frames[iteration % frames.count], using: &rng)
            do {
                _ = try SegmentCodec.decodeCompressed(mutant, model: model, storeTag: SegmentFixture.storeTag,
                                                      sequenceHint: nil, maxContentSize: 1 << 20)
            } catch let error as StrataError {
                #expect(error.code == .corruptSegment, "seed \(seed) iteration \(iteration): \(error)")
                rejected += 1
            }
        }
        // The content checksum catches nearly every change to a compressed block.
        #expect(rejected > 1_900)
    }
}
