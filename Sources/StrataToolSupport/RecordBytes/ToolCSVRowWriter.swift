import Foundation
import Strata

/// Writes records as the rows of `strata fetch --format csv`, from the store's values
/// straight into bytes: each column's cell as the record's JSON object
/// (``ToolRecordText/json(id:values:)``) gives it — empty when the record has no such
/// key or its value is null, a to-many's URIs joined by spaces, a composite's object as
/// compact JSON — quoted as RFC 4180 asks; without a `JSONValue` or a `String` per row
/// (docs/BENCHMARKS.md, W13).
///
/// ```swift
/// var writer = ToolCSVRowWriter(columns: ["_uri", "_entity", "firstName", "salary"])
/// var bytes: [UInt8] = []
/// try writer.append(row, to: &bytes)   // x-strata://…/Employee/p1,Employee,Ada,150000\n
/// ```
package struct ToolCSVRowWriter {
    /// One column's cell: empty (a column the entity's records do not have), text that is
    /// the same in every row (the entity's name, quoted if needed: a range of the
    /// program's bytes), the record's URI, the value in a slot, or a composite's elements
    /// written as one compact JSON object (``Program/composites``). Plain values, so
    /// walking the cells retains nothing.
    private struct Cell {
        enum Kind { case empty, literal, uri, value, composite }
        var kind: Kind
        var start = 0, end = 0
        /// The slot of a value; the index in ``Program/composites`` of a composite.
        var index = 0
    }

    /// An entity's compiled row.
    private struct Program {
        /// Held, so the identifier the program is found by stays its entity's.
        let entity: EntityDescription
        let text: [UInt8]
        let cells: [Cell]
        let composites: [[ToolRecordLayout.Member]]
    }

    /// The header's columns, in order.
    private let columns: [String]
    private var programs = ToolEntityPrograms<Program>()
    private var uris = ToolURIText()
    private var dates = ToolDateText()

    /// A writer of rows under a header of `columns` (`_uri`, `_entity`, then property names).
    package init(columns: [String]) {
        self.columns = columns
    }

    /// Appends the row of the record, and a line feed: each value as the row reads it
    /// (``StoredRecordRow/column(_:)``), a column's bytes straight from the cursor where
    /// the row has them.
    /// - Throws: what reading a value throws (a stored value that does not fit its attribute).
    package mutating func append(_ row: StoredRecordRow, to output: inout [UInt8]) throws {
        let id = row.id
        let program = program(for: id.entity)
        try program.text.withUnsafeBufferPointer { text in
            try program.cells.withUnsafeBufferPointer { cells in
                for position in cells.indices {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    let cell = cells[position]
                    switch cell.kind {
                    case .empty: break
                    case .literal: output.append(contentsOf: UnsafeBufferPointer(rebasing: text[cell.start..<cell.end]))
                    case .uri: appendURI(id, to: &output)
                    case .value: appendColumn(try row.column(cell.index), to: &output)
                    case .composite:
                        let json = try Self.compositeJSON(program.composites[cell.index], row).rendered(pretty: false)
                        ToolValueBytes.appendCSVField(json, to: &output)
                    }
                }
            }
        }
        output.append(UInt8(ascii: "\n"))
    }

    /// One value cell, as ``ToolValueBytes/appendCSVScalar(_:to:)`` writes the value.
    private mutating func appendColumn(_ column: StoredRecordRow.Column, to output: inout [UInt8]) {
        switch column {
        case .null: break
        case .integer(let number): ToolValueBytes.appendInteger(number, to: &output)
        case .boolean(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .double(let number):
            if number.isFinite { ToolValueBytes.appendCSVField(ToolValueText.doubleText(number), to: &output) }
        case .date(let date): appendValue(.date(date), to: &output)
        case .text(let bytes): ToolValueBytes.appendCSVField(bytes, to: &output)
        case .value(let value): appendValue(value, to: &output)
        }
    }

    private mutating func program(for entity: EntityDescription) -> Program {
        if let known = programs.program(for: entity) { return known }
        let program = compile(ToolRecordLayout(entity: entity), of: entity)
        programs.keep(program, for: entity)
        return program
    }

    private mutating func appendURI(_ id: ManagedObjectID, to output: inout [UInt8]) {
        if !uris.appendPlain(id, to: &output) { ToolValueBytes.appendCSVField(id.description, to: &output) }
    }

    private mutating func appendValue(_ value: PropertyValue, to output: inout [UInt8]) {
        switch value {
        case .object(let id): appendURI(id, to: &output)
        case .objects(let ids):
            // Plain URIs hold no comma, quote or line break, and neither does the space
            // between them: the cell needs quotes only when one URI is not plain.
            let start = output.count
            for (index, id) in ids.enumerated() {
                if index > 0 { output.append(UInt8(ascii: " ")) }
                guard uris.appendPlain(id, to: &output) else {
                    output.removeSubrange(start...)
                    ToolValueBytes.appendCSVField(ids.map(\.description).joined(separator: " "), to: &output)
                    return
                }
            }
        case .date(let date):
            // Digits, `-`, `T`, `:`, `.` and `Z`: never quoted.
            if !dates.append(date, to: &output) { ToolValueBytes.appendCSVField(ToolValueText.text(of: date), to: &output) }
        default: ToolValueBytes.appendCSVScalar(value, to: &output)
        }
    }

    /// Each column's cell for the entity's records: the first member with the column's
    /// name, as the JSON object's lookup by key finds it.
    private func compile(_ layout: ToolRecordLayout, of entity: EntityDescription) -> Program {
        var text: [UInt8] = []
        var composites: [[ToolRecordLayout.Member]] = []
        let cells = columns.map { column -> Cell in
            guard let member = layout.members.first(where: { $0.key == column }) else { return Cell(kind: .empty) }
            switch member.node {
            case .uri: return Cell(kind: .uri)
            case .entityName(let name):
                let start = text.count
                ToolValueBytes.appendCSVField(name, to: &text)
                return Cell(kind: .literal, start: start, end: text.count)
            case .value(let slot, _): return Cell(kind: .value, index: slot)
            case .object(let nested):
                composites.append(nested)
                return Cell(kind: .composite, index: composites.count - 1)
            }
        }
        return Program(entity: entity, text: text, cells: cells, composites: composites)
    }

    /// A composite's object with the record's values, as ``ToolRecordText`` builds it.
    /// Rare (a CSV cell of a composite column), so built as a `JSONValue`.
    private static func compositeJSON(_ members: [ToolRecordLayout.Member], _ row: StoredRecordRow) throws -> JSONValue {
        .object(try members.map { member in
            switch member.node {
            case .uri, .entityName: return JSONValue.Member(member.key, .null)
            case .value(let slot, let isToMany):
                let value = try row.column(slot).propertyValue
                return JSONValue.Member(member.key, isToMany && value.isNull ? .array([]) : ToolValueText.json(value))
            case .object(let nested): return JSONValue.Member(member.key, try compositeJSON(nested, row))
            }
        })
    }
}
