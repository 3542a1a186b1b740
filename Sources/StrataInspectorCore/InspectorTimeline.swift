import Foundation
import Strata
import StrataToolSupport

/// The timeline's JSON shapes: a save as one row (time, author, context, action, kinds, a
/// summary of its changes) and a change with its old and new values.
enum InspectorTimeline {
    /// The kinds a save may carry, as the filter takes them.
    static let kindNames = ChangeGroupKind.allCases.map(ToolLogText.kindName)

    /// A save as a timeline row.
    static func row(_ transaction: PersistentHistoryTransaction) -> JSONValue {
        var inserted = 0, updated = 0, deleted = 0
        var entities: [String: Int] = [:]
        for change in transaction.changes {
            switch change.kind {
            case .insert: inserted += 1
            case .update: updated += 1
            case .delete: deleted += 1
            }
            entities[change.objectID.entity.name, default: 0] += 1
        }
        let kinds = orderedUnique(transaction.groups.map { ToolLogText.kindName($0.kind) })
        return .fields([
            "sequence": .int(transaction.token.sequence),
            "time": InspectorValues.time(transaction.timestamp),
            "author": transaction.author.map { .string($0) } ?? .null,
            "context": transaction.contextName.map { .string($0) } ?? .null,
            "action": .string(transaction.actionName ?? ""),
            "kinds": .array(kinds.map { .string($0) }),
            "groups": .array(transaction.groups.map { .int($0.id) }),
            "summary": .fields([
                "inserted": .int(inserted), "updated": .int(updated), "deleted": .int(deleted),
                "entities": .array(entities.keys.sorted().map { .fields(["name": .string($0), "changes": .int(entities[$0]!)]) }),
            ]),
        ])
    }

    /// One object's change in a save: its kind and each property's old and new value.
    static func json(_ change: PersistentHistoryChange) -> JSONValue {
        .fields([
            "ref": .string(change.objectID.shortReference),
            "entity": .string(change.objectID.entity.name),
            "kind": .string(change.kind.rawValue),
            "properties": .array(change.properties.map { property in
                .fields([
                    "key": .string(property.key),
                    "old": InspectorValues.json(property.old),
                    "new": InspectorValues.json(property.new),
                    "added": .array(property.added.prefix(InspectorValues.referenceLimit).map(InspectorValues.reference)),
                    "removed": .array(property.removed.prefix(InspectorValues.referenceLimit).map(InspectorValues.reference)),
                ])
            }),
        ])
    }

    /// The elements in first-seen order, each once.
    static func orderedUnique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }
}
