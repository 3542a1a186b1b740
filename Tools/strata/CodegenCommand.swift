import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata codegen MODEL [--out DIR] [--style keys|macro] [--mode class|extension] [--public]`.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Write typed ManagedObject subclasses for a model.",
        discussion: """
            Like Xcode's class generation: one Swift file per entity with typed keys \
            (AttributeKey, ToOneKey, ToManyKey), typed properties (optionals where the model \
            says optional, to-manys as arrays), typedKeys for registration, and the class \
            under its parent entity's class, named by representedClassName when the model \
            sets one. --mode extension writes only the properties extension \
            (Entity+Properties.swift) for a class you write yourself. Existing files of the \
            same names are replaced; the same model always gives the same bytes.

            --style macro writes @Entity classes instead (the StrataModels library's \
            macros): plain properties with @Attribute, @Relationship and @Transient where \
            the Swift type does not say it all, to-manys as Set (ordered ones as Array), \
            derived attributes as @Attribute(derivation:), composites as nested @Composite \
            structs, fetched properties as #FetchedProperty; ManagedObjectModel(types:) \
            over them, in model order, is the model itself.

            Examples:
              strata codegen Model.xcdatamodeld --out Sources/App/Model
              strata codegen --example employees --out Generated --mode extension
              strata codegen Model.json --out - > Model.swift
              strata codegen Model.json --style macro --out Sources/App/Model
            """)

    @Argument(help: "A model file: JSON, .xcdatamodel or .xcdatamodeld; - reads a JSON model from standard input.",
              completion: ToolCompletion.model)
    var model: String?

    @Option(help: "A built-in example model instead of a file: employees.")
    var example: String?

    @Option(help: "The directory to write into (created when missing); - writes the files one after another to standard output.",
            completion: .directory)
    var out: String = "."

    @Option(help: "keys: typed keys and computed properties; macro: @Entity classes (StrataModels).")
    var style: String = "keys"

    @Option(help: "class: the class and its properties; extension: only the properties extension (keys style).")
    var mode: String = ClassGenerator.Mode.classDefinition.rawValue

    @Flag(name: .customLong("public"), help: "Declare the classes and their members public.")
    var isPublic = false

    func validate() throws {
        guard (model == nil) != (example == nil) else {
            throw ValidationError("Give either a MODEL file or --example employees.")
        }
        if let example, example != "employees" {
            throw ValidationError("Unknown example \(input: example); the examples are: employees.")
        }
        guard ["keys", "macro"].contains(style) else {
            throw ValidationError("Unknown style \(input: style); the styles are: keys, macro.")
        }
        guard ClassGenerator.Mode(rawValue: mode) != nil else {
            throw ValidationError("Unknown mode \(input: mode); the modes are: class, extension.")
        }
    }

    func run() throws {
        let objectModel: ManagedObjectModel
        let source: String
        if let model {
            objectModel = try ToolStandardStreams.model(at: model)
            source = model == ToolStandardStreams.dash ? "a model read from standard input" : URL(fileURLWithPath: model).lastPathComponent
        } else {
            objectModel = ManagedObjectModel.employeesExample()
            source = "the built-in employees example model"
        }
        let files = if style == "macro" {
            try MacroClassGenerator(model: objectModel, access: isPublic ? "public" : "", source: source).files()
        } else {
            try ClassGenerator(model: objectModel, mode: ClassGenerator.Mode(rawValue: mode)!,
                               access: isPublic ? "public" : "", source: source).files()
        }
        if out == ToolStandardStreams.dash {
            // One Swift file that compiles as the several would (repeated imports are allowed).
            try ToolStandardStreams.write(Data(files.map(\.text).joined(separator: "\n").utf8), to: out)
            return
        }
        let directory = URL(fileURLWithPath: out)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in files {
                try Data(file.text.utf8).write(to: directory.appendingPathComponent(file.name), options: .atomic)
            }
        } catch {
            throw StrataError(.io, "Cannot write the generated classes to \(directory.path): \(error.localizedDescription)",
                              context: .init { $0.path = directory.path })
        }
        print("Wrote \(files.count) file\(files.count == 1 ? "" : "s") to \(directory.path): \(files.map(\.name).joined(separator: ", ")).")
    }
}
