import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata-log stats DOC [--json]`.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count operations, groups and bytes in the log, per entity.",
        discussion: """
            Totals over the retained segments: segments, undo groups by kind, operations, raw \
            and compressed bytes and their ratio; then per entity the inserts, updates, \
            deletes and relationship changes.

            Examples:
              strata-log stats staff.strata
              strata-log stats staff.strata --json | jq .ratio
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }

    struct EntityCounts {
        var insert = 0, update = 0, delete = 0, relate = 0, splice = 0
        var total: Int { insert + update + delete + relate + splice }
    }

    func run() throws {
        let log = try DocumentLogFile(URL(fileURLWithPath: document), settings: ToolSettings.configuration(writes: false))
        let records = try log.segmentRecords()
        var groupsByKind: [String: Int] = [:]
        var perEntity: [String: EntityCounts] = [:]
        var operations = 0, groups = 0
        let raw = records.reduce(0) { $0 + $1.rawSize }
        let compressed = records.reduce(0) { $0 + $1.body.count }
        for record in records {
            let segment = try log.decode(record)
            for group in segment.groups {
                groups += 1
                groupsByKind[ToolLogText.kindName(group.kind), default: 0] += 1
                for operation in group.operations {
                    operations += 1
                    let name = operation.objectID.entity.name
                    switch operation {
                    case .insert: perEntity[name, default: EntityCounts()].insert += 1
                    case .update: perEntity[name, default: EntityCounts()].update += 1
                    case .delete: perEntity[name, default: EntityCounts()].delete += 1
                    case .relate: perEntity[name, default: EntityCounts()].relate += 1
                    case .splice: perEntity[name, default: EntityCounts()].splice += 1
                    }
                }
            }
        }
        let ratio = compressed > 0 ? Double(raw) / Double(compressed) : 0
        let entities = log.model.entities.map(\.name).filter { perEntity[$0] != nil }
        if json {
            LogSession.printJSON(.fields([
                "segments": .int(records.count),
                "groups": .int(groups),
                "groupsByKind": .object(ChangeGroupKind.allCases.map(ToolLogText.kindName).compactMap { kind in
                    groupsByKind[kind].map { JSONValue.Member(kind, .int($0)) }
                }),
                "operations": .int(operations),
                "rawBytes": .int(raw),
                "compressedBytes": .int(compressed),
                "ratio": .number(String(format: "%.3f", ratio)),
                "entities": .array(entities.map { name in
                    let counts = perEntity[name] ?? EntityCounts()
                    return .fields(["entity": .string(name), "operations": .int(counts.total), "inserts": .int(counts.insert),
                                    "updates": .int(counts.update), "deletes": .int(counts.delete), "relates": .int(counts.relate), "splices": .int(counts.splice)])
                }),
            ]))
            return
        }
        print("Segments     \(records.count)")
        let kinds = ChangeGroupKind.allCases.map(ToolLogText.kindName).compactMap { kind in groupsByKind[kind].map { "\($0) \(kind)" } }
        print("Groups       \(groups)" + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")"))
        print("Operations   \(operations)")
        print("Bytes        \(LogSession.bytes(raw)) raw, \(LogSession.bytes(compressed)) compressed, ratio \(String(format: "%.2f", ratio))")
        guard !entities.isEmpty else { return }
        print("")
        let header = ["entity", "operations", "inserts", "updates", "deletes", "relates", "splices"]
        let rows = entities.map { name -> [String] in
            let counts = perEntity[name] ?? EntityCounts()
            return [name, String(counts.total), String(counts.insert), String(counts.update), String(counts.delete), String(counts.relate), String(counts.splice)]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(row.enumerated().map { index, cell in
                index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  "))
        }
    }
}
