import Foundation
import Strata
import StrataFuzzTargets
import Testing

/// Every input that ever crashed or hung a fuzz target (Crashers/TARGET/…) now ends in a
/// normal result or a clear error, through the entry point the fuzzer calls.
@Suite struct FuzzCrasherTests {
    static let folder = Bundle.module.resourceURL!.appendingPathComponent("Crashers")

    /// The kept inputs of a target, sorted by name.
    static func inputs(_ target: FuzzTarget) -> [URL] {
        let files = (try? FileManager.default.contentsOfDirectory(
            at: folder.appendingPathComponent(target.rawValue), includingPropertiesForKeys: nil)) ?? []
        return files.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func keptInputsEndInAResultOrAClearError(_ target: FuzzTarget) throws {
        for file in Self.inputs(target) {
            let outcome = target.run([UInt8](try Data(contentsOf: file)))
            if case .refused(let error) = outcome {
                let strata = try #require(error as? StrataError, "\(file.lastPathComponent): \(error)")
                #expect(!strata.message.isEmpty, "\(file.lastPathComponent)")
            }
        }
    }

    /// The committed seeds (Tests/Fuzz/Corpus/TARGET) end the same way, and each target
    /// accepts some of them: a target that refused all its valid seeds would fuzz only its
    /// error paths.
    @Test(arguments: FuzzTarget.allCases)
    func seedsEndInAResultOrAClearErrorAndSomeAreAccepted(_ target: FuzzTarget) throws {
        let folder = FuzzTarget.folder.appendingPathComponent("Corpus").appendingPathComponent(target.rawValue)
        let seeds = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        var accepted = 0
        for file in seeds {
            switch target.run([UInt8](try Data(contentsOf: file))) {
            case .accepted:
                accepted += 1
            case .refused(let error):
                let strata = try #require(error as? StrataError, "\(file.lastPathComponent): \(error)")
                #expect(!strata.message.isEmpty, "\(file.lastPathComponent)")
            }
        }
        #expect(!seeds.isEmpty)
        #expect(accepted > 0, "no seed of \(target.rawValue) is accepted")
    }
}
