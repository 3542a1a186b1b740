import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real editing trace (Tests/StrataTests/Fixtures/editing-traces: gzipped JSON whose
/// README has its source and licence): the text it starts from, the text it ends with, and
/// its keystrokes, each a patch `[position, deleteCount, insertedText]` in Unicode scalars.
/// W15 applies them one by one; peers/loro_bench.py reads the same files.
struct EditingTrace {
    /// One keystroke: at `position`, delete `deleted` scalars, then insert `inserted`.
    struct Patch {
        var position: Int32
        var deleted: Int32
        var inserted: String
    }

    /// The traces W15 runs, with the prefix of their figure names.
    static let names = [(name: "automerge-paper", key: "ap"), (name: "seph-blog1", key: "sb")]

    var name: String
    var startContent: String
    var endContent: String
    var patches: [Patch]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Where the traces are: `STRATA_BENCH_TRACES`, or the test fixtures relative to the
    /// package root (the run script runs the benchmarks from there).
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["STRATA_BENCH_TRACES"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: "Tests/StrataTests/Fixtures/editing-traces")
    }

    /// Reads `<name>.json.gz`, decompressed by `gzip -dc` (Foundation on Linux has no gzip
    /// decoder), and keeps only the compact patches: the JSON objects are released before
    /// the workload starts, so they do not count in its peak memory (see
    /// ``ProcessMemory/resetPeak()``).
    static func load(_ name: String) throws -> EditingTrace {
        let url = directory.appendingPathComponent("\(name).json.gz")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Failure(description: "W15: no editing trace at \(url.path) (run from the package root, or set STRATA_BENCH_TRACES)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "W15: gzip -dc \(url.path) failed (exit status \(process.terminationStatus))")
        }
        return try parse(data, name: name)
    }

    private static func parse(_ data: Data, name: String) throws -> EditingTrace {
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let start = json["startContent"] as? String, let end = json["endContent"] as? String,
              let transactions = json["txns"] as? [[String: Any]]
        else { throw Failure(description: "W15: \(name) is not an editing trace (startContent, endContent, txns)") }
        var patches: [Patch] = []
        patches.reserveCapacity(transactions.count)
        for transaction in transactions {
            guard let list = transaction["patches"] as? [[Any]] else { throw Failure(description: "W15: \(name): a txn without patches") }
            for patch in list {
                guard patch.count == 3, let position = patch[0] as? Int, let deleted = patch[1] as? Int,
                      let inserted = patch[2] as? String
                else { throw Failure(description: "W15: \(name): a patch is not [position, deleteCount, text]") }
                patches.append(Patch(position: Int32(position), deleted: Int32(deleted), inserted: inserted))
            }
        }
        return EditingTrace(name: name, startContent: start, endContent: end, patches: patches)
    }

    /// The first `keystrokes` patches (all of them when 0 or more than the trace has).
    func prefix(_ keystrokes: Int) -> ArraySlice<Patch> {
        keystrokes > 0 ? patches.prefix(keystrokes) : patches[...]
    }

    /// The text after the first `keystrokes` patches, by applying them to an array of
    /// scalars: what a prefix run must end with (the whole trace's is `endContent`, and
    /// that is checked against too).
    func expectedText(after keystrokes: Int) -> String {
        let slice = prefix(keystrokes)
        if slice.count == patches.count { return endContent }
        var scalars = Array(startContent.unicodeScalars)
        for patch in slice {
            let position = Int(patch.position)
            scalars.replaceSubrange(position..<(position + Int(patch.deleted)), with: patch.inserted.unicodeScalars)
        }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        return String(text)
    }
}
