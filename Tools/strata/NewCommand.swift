import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata new DOC --model MODEL | --example employees [--force]`.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create an empty document for a model.",
        discussion: """
            The model comes from a file (a JSON model, an Xcode .xcdatamodel or .xcdatamodeld \
            bundle) or is a built-in example. The model is stored in the document, so the other \
            commands need only the document. An existing file is kept unless --force is given.

            Examples:
              strata new staff.strata --example employees
              strata new notes.strata --model Notes.json
              strata new app.strata --model App.xcdatamodeld --force
            """)

    @Argument(help: "The document to create.", completion: ToolCompletion.document)
    var document: String

    @Option(help: "A model file: JSON, .xcdatamodel or .xcdatamodeld; - reads a JSON model from standard input.",
            completion: ToolCompletion.model)
    var model: String?

    @Option(help: "A built-in example model: employees.")
    var example: String?

    @Flag(help: "Replace an existing file.")
    var force = false

    func validate() throws {
        guard (model == nil) != (example == nil) else {
            throw ValidationError("Give either --model MODEL or --example employees.")
        }
        if let example, example != "employees" {
            throw ValidationError("Unknown example \(input: example); the examples are: employees.")
        }
        guard document != ToolStandardStreams.dash else { throw ValidationError(ToolStandardStreams.message(role: "The document")) }
    }

    func run() throws {
        let url = URL(fileURLWithPath: document)
        if FileManager.default.fileExists(atPath: url.path), !force {
            throw StrataError(.io, "\(url.path) already exists; pass --force to replace it.", context: .init { $0.path = url.path; $0.kind = .exists })
        }
        let objectModel: ManagedObjectModel
        if let model {
            objectModel = try ToolStandardStreams.model(at: model)
            for warning in objectModel.loadWarnings { CommandOutput.note("strata: warning: " + warning) }
        } else {
            objectModel = ManagedObjectModel.employeesExample()
        }
        let store = try DocumentStore(creatingAt: url, model: objectModel, overwrite: force, configuration: DocumentSession.configuration)
        try store.close()
        let concrete = objectModel.entities.filter { !$0.isAbstract }.count
        print("Created \(url.path) with \(objectModel.entities.count) entities (\(concrete) concrete): "
              + objectModel.entities.map(\.name).joined(separator: ", ") + ".")
    }
}
