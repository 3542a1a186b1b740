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
/// try writer.append(row, to: &bytes)   // {\n    "_uri": "x-strata://…", …\n  }
/// ```
package struct ToolRecordWriter {
    /// One piece of a record: text that is the same in every record of the entity (a
    /// range of the program's bytes), the record's URI, or the value in a slot written
    /// `level` levels deep (an array's items one deeper). Plain values, so walking the
    /// steps retains nothing.
    private struct Step {
        enum Kind { case literal, uri, value }
        var kind: Kind
        var start = 0, end = 0
        var slot = 0, level = 0
        var isToMany = false
    }

    /// An entity's compiled record: its steps and the bytes their literals point into.
    private struct Program {
        /// Held, so the identifier the program is found by stays its entity's.
        let entity: EntityDescription
        let text: [UInt8]
        let steps: [Step]
    }

    /// How deep the records are written (1: the items of a top-level array).
    private let indent: Int
    private var programs = ToolEntityPrograms<Program>()
    private var uris = ToolURIText()
    private var dates = ToolDateText()

    /// A writer of records `indent` levels deep in pretty JSON (lines after the first are
    /// indented by `indent` × 2 spaces).
    package init(indent: Int) {
        self.indent = indent
    }

    /// Appends the record: each value as the row reads it (``StoredRecordRow/column(_:)``),
    /// a column's bytes straight from the cursor where the row has them.
    /// - Throws: what reading a value throws (a stored value that does not fit its attribute).
    package mutating func append(_ row: StoredRecordRow, to output: inout [UInt8]) throws {
        let id = row.id
        let program = program(for: id.entity)
        try program.text.withUnsafeBufferPointer { text in
            try program.steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    switch step.kind {
                    case .literal: output.append(contentsOf: UnsafeBufferPointer(rebasing: text[step.start..<step.end]))
                    case .uri: uris.appendJSON(id, to: &output)
                    case .value: appendColumn(try row.column(step.slot), isToMany: step.isToMany, level: step.level, to: &output)
                    }
                }
            }
        }
    }

    /// One value, as ``ToolValueBytes/appendJSONScalar(_:to:)`` writes it.
    private mutating func appendColumn(_ column: StoredRecordRow.Column, isToMany: Bool, level: Int, to output: inout [UInt8]) {
        switch column {
        case .null: output.append(contentsOf: (isToMany ? "[]" : "null").utf8)
        case .integer(let number): ToolValueBytes.appendInteger(number, to: &output)
        case .boolean(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .double(let number):
            if number.isFinite { output.append(contentsOf: ToolValueText.doubleText(number).utf8) } else { output.append(contentsOf: "null".utf8) }
        case .date(let date): appendValue(.date(date), isToMany: isToMany, level: level, to: &output)
        case .text(let bytes):
            output.append(UInt8(ascii: "\""))
            ToolValueBytes.appendJSONEscaped(bytes, to: &output)
            output.append(UInt8(ascii: "\""))
        case .value(let value): appendValue(value, isToMany: isToMany, level: level, to: &output)
        }
    }

    private mutating func program(for entity: EntityDescription) -> Program {
        if let known = programs.program(for: entity) { return known }
        let program = Self.compile(ToolRecordLayout(entity: entity), of: entity, indent: indent)
        programs.keep(program, for: entity)
        return program
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
        case .date(let date):
            // Digits, `-`, `T`, `:`, `.` and `Z`: nothing to escape (the fallback's text is
            // escaped all the same).
            output.append(UInt8(ascii: "\""))
            if !dates.append(date, to: &output) {
                var text = ToolValueText.text(of: date)
                text.withUTF8 { ToolValueBytes.appendJSONEscaped($0, to: &output) }
            }
            output.append(UInt8(ascii: "\""))
        default: ToolValueBytes.appendJSONScalar(value, to: &output)
        }
    }

    private static func appendNewline(level: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    /// The steps of a record `indent` levels deep: as `JSONValue`'s pretty writer lays an
    /// object out, with each value's place left as a step.
    private static func compile(_ layout: ToolRecordLayout, of entity: EntityDescription, indent: Int) -> Program {
        var steps: [Step] = []
        var text: [UInt8] = []
        var literalStart = 0
        func value(_ step: Step) {
            if text.count > literalStart { steps.append(Step(kind: .literal, start: literalStart, end: text.count)) }
            literalStart = text.count
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
                case .uri: value(Step(kind: .uri))
                case .entityName(let name): ToolValueBytes.appendJSONString(name, to: &text)
                case .value(let slot, let isToMany): value(Step(kind: .value, slot: slot, level: level + 1, isToMany: isToMany))
                case .object(let nested): object(nested, level: level + 1)
                }
            }
            appendNewline(level: level, to: &text)
            text.append(UInt8(ascii: "}"))
        }
        object(layout.members, level: indent)
        if text.count > literalStart { steps.append(Step(kind: .literal, start: literalStart, end: text.count)) }
        return Program(entity: entity, text: text, steps: steps)
    }
}
