import Foundation
import Strata

/// Settings the command-line tools share, read from the environment.
package enum ToolSettings {
    /// `STRATA_BUSY_TIMEOUT`: seconds to wait for a document another process holds before
    /// failing with "busy" (default: ``DocumentStore/Configuration/busyTimeout``, 5 s).
    package static var busyTimeout: TimeInterval {
        if let text = ProcessInfo.processInfo.environment["STRATA_BUSY_TIMEOUT"], let seconds = TimeInterval(text), seconds >= 0 {
            return seconds
        }
        return DocumentStore.Configuration().busyTimeout
    }

    /// `STRATA_MAX_SEGMENT_SIZE`: the largest decompressed segment body, in bytes, the
    /// tools decode — the document's `DocumentStore.Configuration.maxSegmentSize` for them
    /// (default 256 MiB). Every tool path that decodes a segment uses it: opening, dump,
    /// stats, export, verify, replay, recover and compact.
    /// Read once: the environment does not change while a tool runs.
    package static let maxSegmentSize: Int = (try? parsedMaxSegmentSize()) ?? SegmentCodec.defaultMaxContentSize

    /// `STRATA_LIMITS`: ``StrataLimits`` for the tools, as comma-separated `name=value`
    /// pairs with the properties' names (`maxPredicateTerms=50000,maxImportFieldBytes=1000`);
    /// the others keep their defaults.
    package static let limits: StrataLimits = (try? parsedLimits()) ?? StrataLimits()

    /// Checks the environment settings and makes ``limits`` the process's
    /// `StrataLimits.current`. Each tool calls it before its command runs.
    /// - Returns: warnings for the tool to print: a limit asked above what the process can
    ///   survive, naming the value asked and the value used (``limitWarnings(_:)``).
    /// - Throws: `.invalidArgument` naming the variable and the value it cannot use.
    package static func apply() throws -> [String] {
        _ = try parsedMaxSegmentSize()
        _ = try parsedCompaction()
        let parsed = try parsedLimits()
        StrataLimits.current = parsed
        return limitWarnings(parsed)
    }

    /// The limits of `STRATA_LIMITS` that count as less than asked: `maxPredicateDepth`
    /// above ``StrataLimits/predicateDepthCeiling`` (deeper recursion could overflow the
    /// stack; docs/LIMITS.md, "Limits the stack sets").
    package static func limitWarnings(_ limits: StrataLimits) -> [String] {
        guard limits.maxPredicateDepth > StrataLimits.predicateDepthCeiling else { return [] }
        return ["STRATA_LIMITS: maxPredicateDepth=\(limits.maxPredicateDepth) is deeper than the stack can take; using \(limits.effectivePredicateDepth)."]
    }

    private static func parsedMaxSegmentSize() throws -> Int {
        guard let text = ProcessInfo.processInfo.environment["STRATA_MAX_SEGMENT_SIZE"] else {
            return SegmentCodec.defaultMaxContentSize
        }
        guard let bytes = Int(text), bytes > 0 else {
            throw StrataError(.invalidArgument, "STRATA_MAX_SEGMENT_SIZE=\(input: text) is not a positive number of bytes.")
        }
        return bytes
    }

    private static func parsedLimits() throws -> StrataLimits {
        var limits = StrataLimits()
        try assign("STRATA_LIMITS", to: &limits, minimum: 1, properties: [
            "maxPredicateDepth": \.maxPredicateDepth, "maxPredicateTerms": \.maxPredicateTerms,
            "maxKeyPathComponents": \.maxKeyPathComponents, "maxRegexPatternLength": \.maxRegexPatternLength,
            "maxRegexSubjectLength": \.maxRegexSubjectLength, "maxRegexWork": \.maxRegexWork,
            "maxImportFieldBytes": \.maxImportFieldBytes, "maxImportRecordBytes": \.maxImportRecordBytes,
            "maxImportRecordValues": \.maxImportRecordValues,
        ])
        return limits
    }

    /// Sets the properties an environment variable of comma-separated `name=N` pairs names
    /// (`STRATA_LIMITS`, `STRATA_COMPACTION`); names it does not mention keep their values.
    /// - Throws: `.invalidArgument` naming the variable and the pair it cannot use.
    static func assign<Settings>(_ variable: String, to settings: inout Settings, minimum: Int,
                                 properties: [String: WritableKeyPath<Settings, Int>]) throws {
        guard let text = ProcessInfo.processInfo.environment[variable] else { return }
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let property = properties[parts[0]] else {
                throw StrataError(.invalidArgument, "\(variable): \(input: pair) is not one of \(properties.keys.sorted().joined(separator: ", ")) =N.")
            }
            guard let value = Int(parts[1]), value >= minimum else {
                let wanted = minimum == 0 ? "a number ≥ 0" : "a positive number"
                throw StrataError(.invalidArgument, "\(variable): \(parts[0])='\(parts[1])' is not \(wanted).")
            }
            settings[keyPath: property] = value
        }
    }

    /// How the tools open a document: no compaction on close, the busy timeout, segment
    /// size, limits and compaction thresholds from the environment; read-only when the command does not write (the
    /// file's bytes stay as they were), and, when it writes, SQLite's quick check first so
    /// that a damaged document is refused instead of written to.
    package static func configuration(writes: Bool) -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.compactsOnClose = false
        configuration.busyTimeout = busyTimeout
        configuration.isReadOnly = !writes
        configuration.checksIntegrityOnOpen = writes
        configuration.maxSegmentSize = maxSegmentSize
        configuration.limits = limits
        applyCompaction(to: &configuration)
        return configuration
    }

    /// The warning for an error `DocumentStore.close()` threw after saves committed (a
    /// checkpoint a full disk stopped), or nil when the error means something else.
    package static func closeWarning(_ error: any Error) -> String? {
        guard let error = error as? StrataError, error.context.kind == .checkpointIncomplete else { return nil }
        return error.message
    }
}
