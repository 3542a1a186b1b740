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
/// writer.append(id, values, to: &bytes)   // x-strata://…/Employee/p1,Employee,Ada,150000\n
/// ```
package struct ToolCSVRowWriter {
    private enum Cell {
        /// A column the entity's records do not have.
        case empty
        /// Text that is the same in every row of the entity (its name, quoted if needed).
        case literal([UInt8])
        /// The record's URI.
        case uri
        /// The value in a slot.
        case value(slot: Int)
        /// A composite's elements, written as one compact JSON object.
        case object([ToolRecordLayout.Member])
    }

    /// The header's columns, in order.
    private let columns: [String]
    /// Cells by entity; the entry holds its entity, so the identifier stays its.
    private var programs: [ObjectIdentifier: (entity: EntityDescription, cells: [Cell])] = [:]
    private var uris = ToolURIText()

    /// A writer of rows under a header of `columns` (`_uri`, `_entity`, then property names).
    package init(columns: [String]) {
        self.columns = columns
    }

    /// Appends the row of the record whose values (by slot) are `values`, and a line feed.
    package mutating func append(_ id: ManagedObjectID, _ values: [PropertyValue], to output: inout [UInt8]) {
        let entity = id.entity
        let cells: [Cell]
        if let program = programs[ObjectIdentifier(entity)], program.entity === entity {
            cells = program.cells
        } else {
            cells = compile(ToolRecordLayout(entity: entity))
            programs[ObjectIdentifier(entity)] = (entity, cells)
        }
        for (index, cell) in cells.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            switch cell {
            case .empty: break
            case .literal(let bytes): output.append(contentsOf: bytes)
            case .uri: appendURI(id, to: &output)
            case .value(let slot): appendValue(slot < values.count ? values[slot] : .null, to: &output)
            case .object(let members):
                ToolValueBytes.appendCSVField(Self.compositeJSON(members, values).rendered(pretty: false), to: &output)
            }
        }
        output.append(UInt8(ascii: "\n"))
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
        default: ToolValueBytes.appendCSVScalar(value, to: &output)
        }
    }

    /// Each column's cell for the entity's records: the first member with the column's
    /// name, as the JSON object's lookup by key finds it.
    private func compile(_ layout: ToolRecordLayout) -> [Cell] {
        columns.map { column in
            guard let member = layout.members.first(where: { $0.key == column }) else { return .empty }
            switch member.node {
            case .uri: return .uri
            case .entityName(let name):
                var bytes: [UInt8] = []
                ToolValueBytes.appendCSVField(name, to: &bytes)
                return .literal(bytes)
            case .value(let slot, _): return .value(slot: slot)
            case .object(let nested): return .object(nested)
            }
        }
    }

    /// A composite's object with the record's values, as ``ToolRecordText`` builds it.
    /// Rare (a CSV cell of a composite column), so built as a `JSONValue`.
    private static func compositeJSON(_ members: [ToolRecordLayout.Member], _ values: [PropertyValue]) -> JSONValue {
        .object(members.map { member in
            switch member.node {
            case .uri, .entityName: return JSONValue.Member(member.key, .null)
            case .value(let slot, let isToMany):
                let value = slot < values.count ? values[slot] : .null
                return JSONValue.Member(member.key, isToMany && value.isNull ? .array([]) : ToolValueText.json(value))
            case .object(let nested): return JSONValue.Member(member.key, compositeJSON(nested, values))
            }
        })
    }
}
