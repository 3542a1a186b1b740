import Foundation

/// A fresh temporary directory, removed with everything in it when the value is released:
/// the one place tests, CLI runs and child programs keep their files.
package final class TemporaryDirectory: @unchecked Sendable {
    /// The directory.
    package let url: URL

    /// Creates a new, empty directory under the system's temporary directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The URL of `name` in the directory (a document, by default).
    package func file(_ name: String = "doc.strata") -> URL { url.appendingPathComponent(name) }

    /// The path of `name` in the directory.
    package func path(_ name: String) -> String { file(name).path }

    /// The bytes of the file `name` in the directory.
    package func bytes(_ name: String) throws -> Data { try Data(contentsOf: file(name)) }
}
