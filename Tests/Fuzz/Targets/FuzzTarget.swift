import Foundation

/// What the fuzzers feed with libFuzzer's inputs (Tools/fuzz.sh, docs/RELIABILITY.md
/// "Fuzzing"). Every target reads one input of arbitrary bytes through the entry point the
/// library or the tools use for untrusted input; the input is fine when it is accepted or
/// refused with an error. A crash, a hang, a sanitizer report or a broken round trip
/// (checked with `preconditionFailure`) is a bug.
///
/// ```swift
/// let outcome = FuzzTarget.predicate.run(Array("salary > 10 AND".utf8))   // .refused(StrataError…)
/// ```
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// A raw segment body (or, starting with LZ4's magic number, a stored LZ4 frame),
    /// decoded over the employees example model; what decodes must encode and decode back
    /// to the same segment.
    case segment
    /// A raw segment body or stored frame decoded over a model with texts, so that its
    /// splices reach the text codecs (versions 4 and 5); what decodes must round trip.
    case textSegment = "text-segment"
    /// A predicate format string: parsed with fixed arguments, evaluated against objects in
    /// memory and fetched from a document (translated to SQL).
    case predicate
    /// A model in the Strata JSON format; what reads must write JSON that reads back to an
    /// equal model.
    case modelJSON = "model-json"
    /// The `contents` XML of an Xcode model; what reads must round-trip through JSON.
    case xcodeModel = "xcode-model"
    /// A command-line value: the first byte picks the attribute type, the rest is the text;
    /// the whole input is also read as JSON, which must render and read back equal.
    case toolValue = "tool-value"
    /// A CSV file for `strata import`, imported into the employees model and saved.
    case importCSV = "import-csv"
    /// A JSON file for `strata import`, imported into the employees model and saved.
    case importJSON = "import-json"
    /// Byte patches over a small document (``DocumentPatch``): opened, every object fetched
    /// with every property, the undo history rebuilt, and verified.
    case document

    /// How one input ended.
    package enum Outcome {
        /// Read without an error.
        case accepted
        /// Refused with an error (the input was bad, and said so).
        case refused(any Error)
    }

    /// Runs one input. Inputs run one at a time per process: the targets keep fixtures (a
    /// document, a context) between inputs, and the tests replay kept inputs in parallel.
    package func run(_ bytes: [UInt8]) -> Outcome {
        Self.lock.lock()
        defer { Self.lock.unlock() }
        do {
            switch self {
            case .segment: try SegmentFuzzing.run(bytes)
            case .textSegment: try TextSegmentFuzzing.run(bytes)
            case .predicate: try PredicateFuzzing.run(bytes)
            case .modelJSON: try ModelFuzzing.runJSON(bytes)
            case .xcodeModel: try ModelFuzzing.runXcode(bytes)
            case .toolValue: try ToolValueFuzzing.run(bytes)
            case .importCSV: try ImportFuzzing.run(bytes, csv: true)
            case .importJSON: try ImportFuzzing.run(bytes, csv: false)
            case .document: try DocumentFuzzing.run(bytes)
            }
            return .accepted
        } catch {
            return .refused(error)
        }
    }

    private static let lock = NSLock()

    /// The repository's Tests/Fuzz folder (fixtures the targets read, the seed corpora).
    package static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
}
