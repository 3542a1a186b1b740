import Foundation
import Strata

/// Segments and operations as `strata-log` prints them.
package enum ToolLogText {
    /// The name of a group kind: user, undo, redo, unregistered, batch, merge.
    package static func kindName(_ kind: ChangeGroupKind) -> String {
        switch kind {
        case .user: return "user"
        case .undo: return "undo"
        case .redo: return "redo"
        case .unregistered: return "unregistered"
        case .batch: return "batch"
        case .merge: return "merge"
        }
    }

    /// The name of an operation: insert, delete, update, relate, splice.
    package static func operationName(_ operation: ChangeOperation) -> String {
        switch operation {
        case .insert: return "insert"
        case .delete: return "delete"
        case .update: return "update"
        case .relate: return "relate"
        case .splice: return "splice"
        }
    }

    static func slotName(_ slot: Int, of entity: EntityDescription) -> String { entity.slotName(slot) }

    static func isTransient(_ slot: Int, of entity: EntityDescription) -> Bool { entity.isTransientSlot(slot) }

    /// A segment as JSON: its row's numbers, then each group with its operations (entity
    /// and key names, old and new values, URIs).
    package static func json(_ segment: Segment, record: SegmentRecord) -> JSONValue {
        .fields([
            "sequence": .int(record.sequence),
            "time": .string(ToolValueText.timestamp(segment.timestamp)),
            "compacted": .bool(record.isCompacted),
            "rawBytes": .int(record.rawSize),
            "bytes": .int(record.body.count),
            "groupCount": .int(segment.groups.count),
            "operationCount": .int(segment.operationCount),
            "groups": .array(segment.groups.map(json)),
        ])
    }

    /// A group as JSON.
    package static func json(_ group: SegmentGroup) -> JSONValue {
        .fields([
            "id": .int(group.id),
            "kind": .string(kindName(group.kind)),
            "reverts": group.revertsGroup.map { .int($0) } ?? .null,
            "action": .string(group.actionName),
            "operations": .array(group.operations.map(json)),
        ])
    }

    /// An operation as JSON.
    package static func json(_ operation: ChangeOperation) -> JSONValue {
        let id = operation.objectID
        var members = [
            JSONValue.Member("op", .string(operationName(operation))),
            JSONValue.Member("entity", .string(id.entity.name)),
            JSONValue.Member("object", .string(id.description)),
        ]
        switch operation {
        case .insert(_, let values), .delete(_, let values):
            members.append(JSONValue.Member("values", .object(values.enumerated().compactMap { slot, value in
                isTransient(slot, of: id.entity) ? nil : JSONValue.Member(slotName(slot, of: id.entity), ToolValueText.json(value))
            })))
        case .update(_, let changes):
            members.append(JSONValue.Member("changes", .array(changes.map { change in
                .fields(["key": .string(slotName(change.slot, of: id.entity)),
                         "old": ToolValueText.json(change.old), "new": ToolValueText.json(change.new)])
            })))
        case .relate(_, let slot, let added, let removed):
            members.append(JSONValue.Member("key", .string(slotName(slot, of: id.entity))))
            members.append(JSONValue.Member("added", .array(added.map { .string($0.description) })))
            members.append(JSONValue.Member("removed", .array(removed.map { .string($0.description) })))
        case .splice(_, let slot, let edit):
            members.append(JSONValue.Member("key", .string(slotName(slot, of: id.entity))))
            members.append(JSONValue.Member("inserted", .array(edit.insertions.map(JSONValue.string))))
            members.append(JSONValue.Member("deleted", .array(edit.deletions.map(JSONValue.string))))
        }
        return .object(members)
    }

    /// A value for a log line: strings quoted, objects as `Entity/pKEY`.
    package static func text(_ value: PropertyValue) -> String {
        switch value {
        case .object(let id): return ToolRecordText.shortReference(id)
        case .objects(let ids): return "[" + ids.map(ToolRecordText.shortReference).joined(separator: ", ") + "]"
        case .string(let text): return text.debugDescription
        default: return ToolValueText.plain(value)
        }
    }

    /// One line per operation: `insert Employee/p3 firstName="Ada" salary=150000`.
    package static func line(_ operation: ChangeOperation) -> String {
        let id = operation.objectID
        let reference = ToolRecordText.shortReference(id)
        switch operation {
        case .insert(_, let values), .delete(_, let values):
            let fields = values.enumerated().compactMap { slot, value -> String? in
                guard !isTransient(slot, of: id.entity), !value.isNull else { return nil }
                if case .objects(let ids) = value, ids.isEmpty { return nil }
                return "\(slotName(slot, of: id.entity))=\(text(value))"
            }
            return "\(operationName(operation)) \(reference)" + (fields.isEmpty ? "" : "  " + fields.joined(separator: " "))
        case .update(_, let changes):
            return "update \(reference)  " + changes.map { "\(slotName($0.slot, of: id.entity)): \(text($0.old)) → \(text($0.new))" }
                .joined(separator: ", ")
        case .relate(_, let slot, let added, let removed):
            let changes = added.map { "+" + ToolRecordText.shortReference($0) } + removed.map { "-" + ToolRecordText.shortReference($0) }
            return "relate \(reference).\(slotName(slot, of: id.entity))  " + changes.joined(separator: " ")
        case .splice(_, let slot, let edit):
            let changes = edit.deletions.map { "-" + $0.debugDescription } + edit.insertions.map { "+" + $0.debugDescription }
            return "splice \(reference).\(slotName(slot, of: id.entity))  " + changes.joined(separator: " ")
        }
    }
}
