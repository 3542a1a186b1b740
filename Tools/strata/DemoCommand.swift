import ArgumentParser
import Foundation
import Strata

/// `strata demo [DIR]`: a guided tour that builds an example document.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build an example document and show edits, undo/redo, save, compaction and a fetch.",
        discussion: """
            Creates employees.strata (the built-in Employee/Department/Project model) in DIR, \
            or in a new temporary directory, and walks through what Strata does, printing each \
            step: inserts and edits saved as named undo groups, undo and redo, closing and \
            reopening with the undo history intact, compaction of the log into snapshot tables, \
            and a fetch with a predicate and a sort. It ends by printing where the file is and \
            commands to explore it.

            Examples:
              strata demo
              strata demo ./demo && strata info ./demo/employees.strata
            """)

    @Argument(help: "Where to create employees.strata (default: a new temporary directory).")
    var directory: String?

    func run() throws {
        let folder: URL
        if let directory {
            folder = URL(fileURLWithPath: directory)
        } else {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString.prefix(8))")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StrataError(.io, "Cannot create \(folder.path): \(error.localizedDescription)", context: .init { $0.path = folder.path })
        }
        try DemoTour(url: folder.appendingPathComponent("employees.strata")).run()
    }
}
