import Foundation
import Strata
import StrataToolSupport

extension FetchCommand {
    /// Prints the matching objects in `format` as they are read, holding none of them
    /// (``FetchBackend/forEachRecord(_:in:_:)``): memory stays the same whatever their
    /// number. The output is the same as printing them all at once.
    ///
    /// - ids, json: one pass.
    /// - csv: one pass; when the entity has sub-entities, a first pass over the records
    ///   finds which appear (their properties are columns after the entity's, in order of
    ///   first appearance), then the second prints.
    /// - table: two passes: the first measures the columns (which hold a value, how wide),
    ///   the second prints. Both hold one record at a time.
    func printObjects(_ specification: FetchSpecification, in session: DocumentSession) throws {
        let output = try StreamedOutput(path: nil)
        // The table's cells are measured and cut from each record's JSON object.
        func each(_ body: (ManagedObjectID, JSONValue) throws -> Void) throws {
            try FetchBackend.forEachRecord(specification, in: session) { id, values in
                try body(id, ToolRecordText.json(id: id, values: values))
            }
        }
        let entity = specification.entity
        switch format {
        case .ids:
            var uris = ToolURIText()
            try FetchBackend.forEachRow(specification, in: session) { row in
                let id = row.id
                try output.append { bytes in
                    if !uris.appendPlain(id, to: &bytes) { bytes.append(contentsOf: id.description.utf8) }
                    bytes.append(UInt8(ascii: "\n"))
                }
            }
        case .json:
            // As `JSONValue.array(records).rendered(pretty: true)`: each record one level
            // in, written from the values into the output's bytes (``ToolRecordWriter``).
            var first = true
            var writer = ToolRecordWriter(indent: 1)
            try output.write("[")
            try FetchBackend.forEachRow(specification, in: session) { row in
                try output.append { bytes in
                    bytes.append(contentsOf: (first ? "\n  " : ",\n  ").utf8)
                    try writer.append(row, to: &bytes)
                }
                first = false
            }
            try output.write(first ? "]\n" : "\n]\n")
        case .csv:
            var names = Self.baseColumns(of: entity)
            if entity.selfAndDescendants.count > 1 {
                // Which sub-entities appear, in order: one record of each gives its keys.
                var seen: Set<ObjectIdentifier> = []
                try FetchBackend.forEachRow(specification, in: session) { row in
                    let entity = row.id.entity
                    guard seen.insert(ObjectIdentifier(entity)).inserted else { return }
                    Self.addColumns(ToolRecordLayout(entity: entity).keys, to: &names)
                }
            }
            // The header waits for the first record, whose keys may add columns (a
            // composite attribute's name); every record of one entity has the same keys.
            var writer: ToolCSVRowWriter?
            func writeHeader(after first: ManagedObjectID?) throws -> ToolCSVRowWriter {
                if let first { Self.addColumns(ToolRecordLayout(entity: first.entity).keys, to: &names) }
                let row = ["_uri", "_entity"] + names
                try output.write(row.map(CommandOutput.csvField).joined(separator: ",") + "\n")
                return ToolCSVRowWriter(columns: row)
            }
            try FetchBackend.forEachRow(specification, in: session) { row in
                if writer == nil { writer = try writeHeader(after: row.id) }
                try output.append { bytes in try writer?.append(row, to: &bytes) }
            }
            if writer == nil { _ = try writeHeader(after: nil) }
        case .table:
            let maxWidth = 28
            var all = Self.baseColumns(of: entity)
            var filled: Set<String> = []
            var widths: [String: Int] = [:]
            var objectWidth = "object".count
            var count = 0
            try each { id, record in
                Self.addColumns(of: record, to: &all)
                objectWidth = max(objectWidth, CommandOutput.tableCell(ToolRecordText.shortReference(id), maxWidth: maxWidth).count)
                for name in all {
                    let value = record[name]
                    if Self.fills(value) { filled.insert(name) }
                    widths[name] = max(widths[name] ?? 0, CommandOutput.tableCell(Self.cell(value), maxWidth: maxWidth).count)
                }
                count += 1
            }
            let kept = all.filter(filled.contains)
            let names = kept.isEmpty ? all : kept
            let header = (["object"] + names).map { CommandOutput.tableCell($0, maxWidth: maxWidth) }
            let columnWidths = [objectWidth] + zip(names, header.dropFirst()).map { max(widths[$0] ?? 0, $1.count) }
            try output.write(CommandOutput.tableLine(header, widths: columnWidths) + "\n" + CommandOutput.tableRule(columnWidths) + "\n")
            var printed = 0
            // The second pass sees the records the first measured, unless another process
            // saved in between; it prints at most as many rows as were measured.
            try each { id, record in
                guard printed < count else { return }
                let row = [ToolRecordText.shortReference(id)] + names.map { Self.cell(record[$0]) }
                try output.write(CommandOutput.tableLine(row.map { CommandOutput.tableCell($0, maxWidth: maxWidth) }, widths: columnWidths) + "\n")
                printed += 1
            }
            try output.finish()
            CommandOutput.note("\(count) object\(count == 1 ? "" : "s")")
            return
        }
        try output.finish()
    }
}
