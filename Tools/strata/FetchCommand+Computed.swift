import Foundation
import Strata
import StrataToolSupport

extension FetchCommand {
    /// `--select`/`--group-by`/`--having`/`--distinct`: one dictionary fetch, printed as a
    /// table (columns in --select order), JSON (an array of objects, keys in --select
    /// order, NULLs left out as the library does) or CSV.
    func runComputed(predicate: FetchPredicate?, descriptors: [FetchSortDescriptor]) throws {
        try DocumentSession.with(document) { session in
            let entity = try session.entity(named: self.entity)
            let request = FetchRequest(entityName: entity.name, predicate: predicate, sortDescriptors: descriptors)
            request.resultType = .dictionary
            request.fetchLimit = limit
            request.fetchOffset = offset
            request.returnsDistinctResults = distinct
            if let select { request.propertiesToFetch = try SelectList.properties(select, option: "--select", entity: entity) }
            if let groupBy { request.propertiesToGroupBy = try SelectList.properties(groupBy, option: "--group-by", entity: entity) }
            if let having {
                do {
                    request.havingPredicate = try FetchPredicate(format: having)
                } catch var error as StrataError {
                    error.message = "Malformed --having predicate: \(error.message) (in: \(Self.excerpt(having, column: error.context.column)))"
                    throw error
                }
            }
            let rows = try session.context.fetchDictionaries(request)
            if count {
                print(rows.count)
                return
            }
            let names = (request.propertiesToFetch ?? request.propertiesToGroupBy ?? []).map(\.name)
            switch format {
            case .json:
                CommandOutput.printJSON(.array(rows.map { row in
                    .object(names.compactMap { name in row[name].map { JSONValue.Member(name, ToolValueText.json($0)) } })
                }))
            case .csv:
                var lines = [names.map(CommandOutput.csvField).joined(separator: ",")]
                for row in rows {
                    lines.append(names.map { CommandOutput.csvField(ToolValueText.plain(row[$0] ?? .null, nullText: "")) }.joined(separator: ","))
                }
                print(lines.joined(separator: "\n"))
            case .table, .ids:
                let cells = rows.map { row in names.map { ToolValueText.plain(row[$0] ?? .null, nullText: "") } }
                print(CommandOutput.table(names, cells, maxWidth: 40))
                CommandOutput.note("\(rows.count) row\(rows.count == 1 ? "" : "s")")
            }
        }
    }
}
