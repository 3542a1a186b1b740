import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata model DOC [--format table|json] [--out FILE]`.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the model a document is written with: every entity, attribute and relationship.",
        discussion: """
            The table lists each entity (its parent, whether it is abstract), then its \
            attributes (type, optional, default, indexed) and relationships (destination, \
            to-one or to-many, inverse, delete rule). --format json prints the model file \
            itself (docs/MODEL-FORMAT.md): save it with --out, edit it into the next \
            version and give it to `strata migrate --model`.

            Examples:
              strata model staff.strata
              strata model staff.strata --format json --out Staff-v2.json
              strata migrate staff.strata --model Staff-v2.json --dry-run
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }

    @Option(help: "table (for people) or json (the model file).")
    var format: Format = .table

    @Option(help: "Write to FILE instead of standard output (refused when it exists).")
    var out: String?

    func run() throws {
        let model = try DocumentSession.with(document) { $0.model }
        let text = format == .json
            ? String(decoding: model.jsonRepresentation(), as: UTF8.self)
            : Self.table(model)
        guard let out else {
            print(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            return
        }
        let url = URL(fileURLWithPath: out)
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.invalidArgument, "\(out) already exists: name a new file.", context: .init { $0.path = out })
        }
        do {
            try Data((text.hasSuffix("\n") ? text : text + "\n").utf8).write(to: url, options: .withoutOverwriting)
        } catch {
            throw StrataError(.invalidArgument, "Could not write \(out): \(error.localizedDescription)", context: .init { $0.path = out })
        }
        FileHandle.standardError.write(Data("Wrote the model of \(document) (\(model.entities.count) entities) to \(out).\n".utf8))
    }

    /// One block per entity: a heading, then a row per property.
    static func table(_ model: ManagedObjectModel) -> String {
        var blocks: [String] = []
        if let version = model.versionIdentifier { blocks.append("Model \(version)") }
        for entity in model.entities {
            var heading = entity.name
            if let parent = entity.superentity?.name { heading += " : \(parent)" }
            if entity.isAbstract { heading += " (abstract)" }
            var rows: [[String]] = entity.attributes.map { attribute in
                var notes: [String] = []
                if attribute.isOptional { notes.append("optional") }
                if attribute.isIndexed { notes.append("indexed") }
                if attribute.isTransient { notes.append("transient") }
                if attribute.derivation != nil { notes.append("derived") }
                if attribute.defaultValue != .null { notes.append("default \(attribute.defaultValue)") }
                return [attribute.name, "\(attribute.attributeType)", notes.joined(separator: ", ")]
            }
            rows += entity.relationships.map { relationship in
                var notes = [relationship.isToMany ? "to-many" : "to-one", "delete rule \(relationship.deleteRule)"]
                if relationship.isOptional { notes.insert("optional", at: 0) }
                if let inverse = relationship.inverseName { notes.append("inverse \(inverse)") }
                return [relationship.name, "→ \(relationship.destinationEntityName)", notes.joined(separator: ", ")]
            }
            blocks.append(heading + "\n" + CommandOutput.table(["property", "type", "notes"], rows, maxWidth: 60))
        }
        return blocks.joined(separator: "\n\n")
    }
}
