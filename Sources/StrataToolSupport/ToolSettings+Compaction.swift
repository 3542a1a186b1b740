import Foundation
import Strata

extension ToolSettings {
    /// `STRATA_COMPACTION`: the automatic compaction thresholds of the documents the tools
    /// write, as comma-separated `name=value` pairs (`operations=50000,segments=0`); names
    /// `segments`, `bytes`, `operations`, `decodedBytes` (the `compaction…Threshold`
    /// settings of `DocumentStore.Configuration`), 0 turning one off; the others keep their
    /// defaults. Read once: the environment does not change while a tool runs.
    package static let compaction: DocumentStore.Configuration = (try? parsedCompaction()) ?? DocumentStore.Configuration()

    /// The configuration with the `STRATA_COMPACTION` thresholds set.
    /// - Throws: `.invalidArgument` naming the pair it cannot use.
    static func parsedCompaction(into base: DocumentStore.Configuration = DocumentStore.Configuration()) throws -> DocumentStore.Configuration {
        var configuration = base
        guard let text = ProcessInfo.processInfo.environment["STRATA_COMPACTION"] else { return configuration }
        let properties: [String: WritableKeyPath<DocumentStore.Configuration, Int>] = [
            "segments": \.compactionSegmentThreshold, "bytes": \.compactionByteThreshold,
            "operations": \.compactionOperationThreshold, "decodedBytes": \.compactionDecodedByteThreshold,
        ]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let property = properties[parts[0]] else {
                throw StrataError(.invalidArgument, "STRATA_COMPACTION: '\(pair)' is not one of \(properties.keys.sorted().joined(separator: ", ")) =N.")
            }
            guard let value = Int(parts[1]), value >= 0 else {
                throw StrataError(.invalidArgument, "STRATA_COMPACTION: \(parts[0])='\(parts[1])' is not a number ≥ 0.")
            }
            configuration[keyPath: property] = value
        }
        return configuration
    }

    /// Copies the `STRATA_COMPACTION` thresholds into a configuration.
    static func applyCompaction(to configuration: inout DocumentStore.Configuration) {
        configuration.compactionSegmentThreshold = compaction.compactionSegmentThreshold
        configuration.compactionByteThreshold = compaction.compactionByteThreshold
        configuration.compactionOperationThreshold = compaction.compactionOperationThreshold
        configuration.compactionDecodedByteThreshold = compaction.compactionDecodedByteThreshold
    }
}
