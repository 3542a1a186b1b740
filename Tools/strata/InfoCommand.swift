import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata info DOC [--json]`.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Summarize a document: model, objects, log, history, file size.",
        discussion: """
            Shows the model (each entity with its attribute and relationship counts, then \
            its indexes, uniqueness constraints, derived and composite attributes), the \
            number of objects of each entity, the log's segments (count, bytes, how far they \
            are compacted), the history retained (first retained segment, undo groups) and \
            the file size, the model versions the document has used, and what reading an \
            Xcode model left out when the document was created or migrated. --json prints the \
            same as one JSON object for scripts.

            Examples:
              strata info staff.strata
              strata info staff.strata --json | jq '.entities[].objects'
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }

    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }

    func run() throws {
        try DocumentSession.with(document) { session in
            let info = try session.store.info()
            let entities = session.model.entities
            let versions = try session.store.modelVersions()
            if json {
                CommandOutput.printJSON(Self.json(info, entities: entities, versions: versions, warnings: session.model.loadWarnings))
                return
            }
            print("Document  \(info.path)")
            print("Store     \(info.storeIdentifier) · format \(info.formatVersion) · model \(info.modelVersion ?? "unversioned") (hash \(info.modelHash.prefix(12)))")
            print("")
            let rows = entities.map { entity -> [String] in
                [entity.name + (entity.isAbstract ? " (abstract)" : ""), entity.superentity?.name ?? "",
                 String(entity.attributes.count), String(entity.relationships.count),
                 entity.isAbstract ? "" : CommandOutput.grouped(info.objectCounts[entity.name] ?? 0)]
            }
            print(CommandOutput.table(["entity", "parent", "attributes", "relationships", "objects"], rows, rightAligned: [2, 3, 4]))
            print("")
            let modelLines = ModelInfoText.lines(for: entities)
            if !modelLines.isEmpty { print(modelLines.joined(separator: "\n") + "\n") }
            let warnings = session.model.loadWarnings
            if !warnings.isEmpty {
                print("Warnings  what reading the model file left out (docs/MODEL-FORMAT.md, \"Lenient and strict\"):")
                print(warnings.map { "  - " + $0 }.joined(separator: "\n") + "\n")
            }
            let constraintLines = Self.constraintIndexLines(try session.store.constraintIndexStatus())
            if !constraintLines.isEmpty { print(constraintLines.joined(separator: "\n") + "\n") }
            let ratio = info.segmentBytes > 0 ? String(format: "%.1f×", Double(info.segmentRawBytes) / Double(info.segmentBytes)) : "–"
            print("Segments  \(info.segmentCount) stored, \(CommandOutput.bytes(info.segmentBytes)) compressed (\(CommandOutput.bytes(info.segmentRawBytes)) raw, \(ratio)); last \(info.lastSegment), compacted through \(info.compactedThrough)")
            let full = info.segmentCount == 0 ? "empty log" : (info.firstRetainedSegment == 1 ? "full history" : "history before segment \(info.firstRetainedSegment) dropped")
            print("History   first retained segment \(info.firstRetainedSegment), \(info.groupCount) undo groups (\(full))")
            print("File      \(CommandOutput.bytes(info.fileSize)) (\(CommandOutput.grouped(info.fileSize)) bytes)")
            for version in versions {
                let when = (version.migratedAt.map { "migrated \($0)" } ?? "created with it") + (version.isCustom ? " by a custom stage" : "")
                print("Model v\(version.version)  \(version.identifier ?? "unversioned") (hash \(version.hash.prefix(12))), segments from \(version.firstSegment), \(when)")
            }
        }
    }

    /// A line for each constraint index that is not UNIQUE, naming the records that keep it
    /// so (docs/SQL.md, "Uniqueness constraints"); nothing when every one is UNIQUE.
    static func constraintIndexLines(_ indexes: [ConstraintIndexStatus]) -> [String] {
        indexes.filter { !$0.isUnique }.map { index in
            let what = index.isPresent ? "is not UNIQUE" : "is missing (the document was opened read-only since the constraint was declared)"
            let why = index.clashes.isEmpty ? "" : ": records share keys, \(index.clashes.joined(separator: "; ")); saves still check the constraint"
            return "Constraint index \(index.name) \(what)\(why)"
        }
    }

    static func json(_ info: DocumentInfo, entities: [EntityDescription], versions: [ModelVersionRecord], warnings: [String]) -> JSONValue {
        let entityList: [JSONValue] = entities.map { entity in
            let fields: JSONValue = .fields([
                "name": .string(entity.name),
                "parent": entity.superentity.map { .string($0.name) } ?? .null,
                "abstract": .bool(entity.isAbstract),
                "attributes": .int(entity.attributes.count),
                "relationships": .int(entity.relationships.count),
                "objects": entity.isAbstract ? .null : .int(info.objectCounts[entity.name] ?? 0),
            ])
            guard case .object(let members) = fields else { return fields }
            return .object(members + ModelInfoText.json(for: entity).map { JSONValue.Member($0.0, $0.1) })
        }
        return .fields([
            "path": .string(info.path),
            "storeIdentifier": .string(info.storeIdentifier),
            "formatVersion": .int(info.formatVersion),
            "modelHash": .string(info.modelHash),
            "modelVersion": info.modelVersion.map { .string($0) } ?? .null,
            "entities": .array(entityList),
            "modelWarnings": .array(warnings.map { .string($0) }),
            "segments": .fields([
                "count": .int(info.segmentCount),
                "bytes": .int(info.segmentBytes),
                "rawBytes": .int(info.segmentRawBytes),
                "last": .int(info.lastSegment),
                "compactedThrough": .int(info.compactedThrough),
            ]),
            "history": .fields([
                "firstRetainedSegment": .int(info.firstRetainedSegment),
                "groups": .int(info.groupCount),
                "full": .bool(info.firstRetainedSegment <= 1),
            ]),
            "fileSize": .int(info.fileSize),
            "modelVersions": .array(versions.map { version in
                .fields([
                    "version": .int(version.version),
                    "hash": .string(version.hash),
                    "identifier": version.identifier.map { .string($0) } ?? .null,
                    "firstSegment": .int(Int(version.firstSegment)),
                    "migratedAt": version.migratedAt.map { .string($0) } ?? .null,
                    "stage": .string(version.version == 1 ? "created" : (version.isCustom ? "custom" : "inferred")),
                ])
            }),
        ])
    }
}
