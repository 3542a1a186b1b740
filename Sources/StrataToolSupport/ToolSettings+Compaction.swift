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
        try assign("STRATA_COMPACTION", to: &configuration, minimum: 0, properties: [
            "segments": \.compactionSegmentThreshold, "bytes": \.compactionByteThreshold,
            "operations": \.compactionOperationThreshold, "decodedBytes": \.compactionDecodedByteThreshold,
        ])
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
