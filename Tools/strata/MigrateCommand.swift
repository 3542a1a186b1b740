import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata migrate DOC --model NEW [--dry-run] [--json]`.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a document to a new version of its model (inferred, lightweight).",
        discussion: """
            Infers how the document's records become records of the new model (added and \
            removed entities and properties, renames through renaming identifiers, widened \
            numbers, to-one → to-many, a changed parent...) and rebuilds its snapshot tables \
            in one transaction: a failure or a kill leaves the document as it was. A change \
            that cannot be inferred is refused before anything is written, naming each \
            entity and property that blocks it. --dry-run prints the same report and writes \
            nothing. The log is kept: `strata info` lists the model versions it was written with.

            Several --model options make a staged migration through each version in turn, \
            one transaction per stage: run again after a failure or a kill, it skips the \
            stages the document already reached and finishes the rest.

            Examples:
              strata migrate cars.strata --model SampleModel.xcdatamodeld --dry-run
              strata migrate cars.strata --model Model-v3.json
              strata migrate cars.strata --model Model-v2.json --model Model-v3.json
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }

    @Option(help: "The new model: JSON, .xcdatamodel or .xcdatamodeld (its current version; - reads a JSON model from standard input); repeat it for a staged migration through each version in order.",
            completion: ToolCompletion.model)
    var model: [String] = []

    @Flag(help: "Report what would change without writing anything.")
    var dryRun = false

    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }

    func validate() throws {
        guard !model.isEmpty else { throw ValidationError("Name the new model with --model MODEL (repeat it for a staged migration).") }
        guard model.count == 1 || !dryRun else {
            throw ValidationError("--dry-run reports one migration: give one --model (the stages' first, then run each in turn).")
        }
    }

    func run() throws {
        let url = URL(fileURLWithPath: document)
        let models = try model.map(ToolStandardStreams.model(at:))
        for warning in models.flatMap(\.loadWarnings) { CommandOutput.note("strata: warning: " + warning) }
        // The bar's one phase, begun when the first records are migrated.
        let bar = ToolProgressBar()
        func show(_ done: Int, _ total: Int) {
            if bar.phase == nil { bar.begin(.migrating) }
            bar.update(done, of: total)
        }
        let report: MigrationReport
        if models.count == 1 {
            report = try DocumentStore.migrate(at: url, to: models[0], dryRun: dryRun,
                                               configuration: ToolSettings.configuration(writes: !dryRun),
                                               progress: { show($0, $1) })
        } else {
            let reports = try DocumentStore.migrate(at: url, stages: models.map { .lightweight(to: $0) },
                                                    configuration: ToolSettings.configuration(writes: true),
                                                    progress: { _, done, total in show(done, total) })
            bar.finish()
            if !json { print("Staged migration: \(reports.count) of \(models.count) stages run (the others were done before).") }
            guard let last = reports.last else {
                if json { CommandOutput.printJSON(.fields(["migrated": .bool(false), "stages": .int(0)])) }
                else { print("Nothing to migrate: \(url.path) already stores the last stage's model.") }
                return
            }
            report = last
        }
        bar.finish()
        if json {
            CommandOutput.printJSON(Self.json(report, dryRun: dryRun))
            return
        }
        if report.sourceHash == report.destinationHash {
            print("Nothing to migrate: \(url.path) already stores this model (hash \(report.destinationHash.prefix(12))).")
            return
        }
        print((dryRun ? "Dry run: " : "") + "model \(report.sourceHash.prefix(12)) → \(report.destinationHash.prefix(12))")
        for change in report.changes { print("  \(change)") }
        print("")
        let rows = report.entities.map { entity -> [String] in
            [entity.entity, entity.sourceEntity ?? "(new)", entity.table, CommandOutput.grouped(entity.records),
             entity.addedColumns.joined(separator: " "), entity.removedColumns.joined(separator: " ")]
        }
        print(CommandOutput.table(["entity", "from", "table", "rows", "columns added", "columns removed"], rows, rightAligned: [3]))
        let total = report.entities.reduce(0) { $0 + $1.records }
        print("")
        var summary = "\(CommandOutput.grouped(total)) records " + (dryRun ? "would be migrated" : "migrated")
        if report.droppedRecords > 0 { summary += ", \(CommandOutput.grouped(report.droppedRecords)) of removed entities dropped" }
        if report.rekeyedRecords > 0 { summary += ", \(CommandOutput.grouped(report.rekeyedRecords)) given new keys" }
        print(summary + ".")
    }

    static func json(_ report: MigrationReport, dryRun: Bool) -> JSONValue {
        .fields([
            "dryRun": .bool(dryRun),
            "migrated": .bool(report.didMigrate),
            "from": .string(report.sourceHash),
            "to": .string(report.destinationHash),
            "changes": .array(report.changes.map { .string($0) }),
            "droppedRecords": .int(report.droppedRecords),
            "rekeyedRecords": .int(report.rekeyedRecords),
            "entities": .array(report.entities.map { entity in
                .fields([
                    "name": .string(entity.entity),
                    "from": entity.sourceEntity.map { .string($0) } ?? .null,
                    "table": .string(entity.table),
                    "records": .int(entity.records),
                    "addedColumns": .array(entity.addedColumns.map { .string($0) }),
                    "removedColumns": .array(entity.removedColumns.map { .string($0) }),
                ])
            }),
        ])
    }
}
