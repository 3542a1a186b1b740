import Foundation
import Strata

/// `-` for standard input or output, wherever a tool reads or writes a file (an import
/// file, a model, an export): the convention of cat, tar and sqlite3 (README.md, "Command
/// line"). A document can never be `-`: it is an SQLite file read and written in place.
package enum ToolStandardStreams {
    /// The name that means standard input or output.
    package static let dash = "-"

    /// A copy of standard input in a temporary file, removed when this is released: for
    /// readers that need a regular file (an import reads its file more than once, a model
    /// is parsed by its extension).
    package final class SpooledInput {
        /// The temporary file's path.
        package let path: String
        private let directory: URL

        fileprivate init(suffix: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stdin-\(UUID().uuidString)")
            let file = directory.appendingPathComponent("stdin" + suffix)
            path = file.path
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw StrataError(.io, "Cannot create a temporary file for standard input in \(directory.deletingLastPathComponent().path).")
                }
                let output = try FileHandle(forWritingTo: file)
                defer { try? output.close() }
                while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try output.write(contentsOf: chunk)
                }
            } catch let error as StrataError {
                try? FileManager.default.removeItem(at: directory)
                throw error
            } catch {
                try? FileManager.default.removeItem(at: directory)
                throw StrataError(.io, "Cannot read standard input into a temporary file: \(error.localizedDescription)",
                                  context: .init { $0.path = path })
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Standard input copied to a temporary file whose name ends in `suffix` (`.json` for
    /// a model).
    /// - Throws: `.io` when standard input cannot be read or the copy written.
    package static func spoolStandardInput(suffix: String = "") throws -> SpooledInput {
        try SpooledInput(suffix: suffix)
    }

    /// Writes `data` to standard output when `path` is nil or `-`, else to the file at
    /// `path` through a temporary file renamed into place (a failed write keeps the old file).
    /// - Throws: `.io` naming the file.
    package static func write(_ data: Data, to path: String?) throws {
        guard let path, path != dash else {
            FileHandle.standardOutput.write(data)
            return
        }
        try AtomicFileWriter.write(data, to: URL(fileURLWithPath: path))
    }

    /// Refuses `-` where a document is named.
    /// - Parameter role: what the argument is ("The document", "--out").
    /// - Throws: `.invalidArgument` saying why a document cannot be a stream.
    package static func requireDocumentPath(_ path: String, role: String = "The document") throws {
        guard path == dash else { return }
        throw StrataError(.invalidArgument, message(role: role), context: .init { $0.path = path })
    }

    /// Why a document cannot be `-`.
    package static func message(role: String) -> String {
        "\(role) cannot be '-' (standard input or output): a Strata document is an SQLite file read and written in place; name a .strata file."
    }
}

extension ToolStandardStreams {
    /// The model in a file (JSON, `.xcdatamodel`, `.xcdatamodeld`), or a JSON model read
    /// from standard input for `-`.
    /// - Throws: `.modelFile` when it cannot be read or parsed.
    package static func model(at path: String) throws -> ManagedObjectModel {
        guard path == dash else { return try ManagedObjectModel(contentsOf: URL(fileURLWithPath: path)) }
        let spooled = try spoolStandardInput(suffix: ".json")
        return try withExtendedLifetime(spooled) { try ManagedObjectModel(contentsOf: URL(fileURLWithPath: spooled.path)) }
    }
}
