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
}
