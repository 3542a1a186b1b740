import Foundation
import Strata

/// Writes records as `strata fetch --format json` and `strata export` print them, from the
/// store's values straight into bytes: the text of
/// `ToolRecordText.json(id:values:).rendered(pretty: true, indent:)`, byte for byte,
/// without a `JSONValue` tree or a `String` per record (docs/BENCHMARKS.md, W13).
///
/// Per entity, the layout (``ToolRecordLayout``) is compiled once into steps: the text
/// between values (braces, indentation, keys, the entity's name) as ready bytes, and the
/// slots whose values go between them.
///
/// ```swift
/// var writer = ToolRecordWriter(indent: 1)
/// var bytes: [UInt8] = []
/// writer.append(id, values, to: &bytes)   // {\n    "_uri": "x-strata://…", …\n  }
/// ```
package struct ToolRecordWriter {
    private enum Step {
        /// Text that is the same in every record of the entity.
        case literal([UInt8])
        /// The record's URI, as a string.
        case uri
        /// The value in a slot, written `level` levels deep (an array's items one deeper).
        case value(slot: Int, isToMany: Bool, level: Int)
    }

    /// How deep the records are written (1: the items of a top-level array).
    private let indent: Int
    /// Compiled steps by entity; the entry holds its entity, so the identifier stays its.
    private var programs: [ObjectIdentifier: (entity: EntityDescription, steps: [Step])] = [:]
    private var uris = ToolURIText()

    /// A writer of records `indent` levels deep in pretty JSON (lines after the first are
    /// indented by `indent` × 2 spaces).
    package init(indent: Int) {
        self.indent = indent
    }

    /// Appends the record whose values (by slot) are `values`.
    package mutating func append(_ id: ManagedObjectID, _ values: [PropertyValue], to output: inout [UInt8]) {
        let entity = id.entity
        let steps: [Step]
        if let program = programs[ObjectIdentifier(entity)], program.entity === entity {
            steps = program.steps
        } else {
            steps = Self.compile(ToolRecordLayout(entity: entity), indent: indent)
            programs[ObjectIdentifier(entity)] = (entity, steps)
        }
        for step in steps {
            switch step {
            case .literal(let bytes): output.append(contentsOf: bytes)
            case .uri: uris.appendJSON(id, to: &output)
            case .value(let slot, let isToMany, let level):
                let value = slot < values.count ? values[slot] : .null
                appendValue(value, isToMany: isToMany, level: level, to: &output)
            }
        }
    }

    private mutating func appendValue(_ value: PropertyValue, isToMany: Bool, level: Int, to output: inout [UInt8]) {
        switch value {
        case .object(let id): uris.appendJSON(id, to: &output)
        case .objects(let ids):
            guard !ids.isEmpty else {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (index, id) in ids.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.appendNewline(level: level + 1, to: &output)
                uris.appendJSON(id, to: &output)
            }
            Self.appendNewline(level: level, to: &output)
            output.append(UInt8(ascii: "]"))
        case .null where isToMany: output.append(contentsOf: "[]".utf8)
        default: ToolValueBytes.appendJSONScalar(value, to: &output)
        }
    }

    private static func appendNewline(level: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    /// The steps of a record `indent` levels deep: as `JSONValue`'s pretty writer lays an
    /// object out, with each value's place left as a step.
    private static func compile(_ layout: ToolRecordLayout, indent: Int) -> [Step] {
        var steps: [Step] = []
        var text: [UInt8] = []
        func value(_ step: Step) {
            if !text.isEmpty { steps.append(.literal(text)) }
            text.removeAll()
            steps.append(step)
        }
        func object(_ members: [ToolRecordLayout.Member], level: Int) {
            text.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                appendNewline(level: level + 1, to: &text)
                ToolValueBytes.appendJSONString(member.key, to: &text)
                text.append(contentsOf: ": ".utf8)
                switch member.node {
                case .uri: value(.uri)
                case .entityName(let name): ToolValueBytes.appendJSONString(name, to: &text)
                case .value(let slot, let isToMany): value(.value(slot: slot, isToMany: isToMany, level: level + 1))
                case .object(let nested): object(nested, level: level + 1)
                }
            }
            appendNewline(level: level, to: &text)
            text.append(UInt8(ascii: "}"))
        }
        object(layout.members, level: indent)
        if !text.isEmpty { steps.append(.literal(text)) }
        return steps
    }
}
