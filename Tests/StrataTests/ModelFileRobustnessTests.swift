import Foundation
import Testing
@testable import Strata

@Suite struct ModelFileRobustness {
    static let interestingBytes: [UInt8] = Array("{}[]\",:0-1e.\\ntruefalsenull<>/=\" \n".utf8) + [0x00, 0xFF, 0xC3]

    static func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var copy = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) where !copy.isEmpty {
            let index = Int.random(in: 0..<copy.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: copy.remove(at: index)
            case 1: copy.insert(interestingBytes.randomElement(using: &random) ?? 0, at: index)
            default: copy[index] = interestingBytes.randomElement(using: &random) ?? 0
            }
        }
        return copy
    }

    @Test func mutatedJSONIsEitherReadOrRejectedWithAStrataError() throws {
        let original = Array(try ModelFixtures.employeeModel().jsonRepresentation())
        var random = SeededGenerator(seed: 20_240_601)
        var rejected = 0
        for round in 0..<400 {
            let mutated = Self.mutate(original, &random)
            do {
                let model = try ManagedObjectModel(jsonData: Data(mutated))
                // Whatever was read must write and read back to itself.
                #expect(try ManagedObjectModel(jsonData: model.jsonRepresentation()).jsonRepresentation()
                    == model.jsonRepresentation(), "round \(round)")
            } catch let error as StrataError {
                #expect(error.code == .modelFile || error.code == .invalidModel, "round \(round)")
                rejected += 1
            }
        }
        #expect(rejected > 200)
    }

    @Test func mutatedXMLIsEitherImportedOrRejectedWithAStrataError() throws {
        let original = Array(try Data(contentsOf: ModelFixtures.xcodeFixtureURL("mogenerator__test")))
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let file = directory.appendingPathComponent("contents")
        var random = SeededGenerator(seed: 7)
        for round in 0..<400 {
            try Data(Self.mutate(original, &random)).write(to: file)
            do {
                _ = try ManagedObjectModel(xcdatamodelAt: file)
            } catch let error as StrataError {
                #expect(error.code == .modelFile || error.code == .invalidModel, "round \(round)")
            }
        }
    }
}
