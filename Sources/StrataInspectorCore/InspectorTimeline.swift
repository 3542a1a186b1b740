import Foundation
import Strata
import StrataToolSupport

/// The timeline's JSON shapes: a save as one row (time, author, context, action, kinds, a
/// summary of its changes) and a change with its old and new values.
enum InspectorTimeline {
    /// The kinds a save may carry, as the filter takes them: its groups' kinds (user,
    /// undo, redo, unregistered, batch, merge), `sync` for a save taken in from a sync
    /// remote, and `migration` for the first save written after a migration (a migration
    /// itself writes no save; docs/MIGRATION.md).
    static let kindNames = ChangeGroupKind.allCases.map(ToolLogText.kindName) + [syncKind, migrationKind]
    /// A save taken in from a sync remote (`DocumentStore.pulledSegments(in:)`).
    static let syncKind = "sync"
    /// The first save of a model version after the first.
    static let migrationKind = "migration"

    /// A save's kinds: its groups' and the `extra` ones (``syncKind``, ``migrationKind``).
    static func kinds(_ groups: [ChangeGroupInfo], extra: [String]) -> [String] {
        orderedUnique(groups.map { ToolLogText.kindName($0.kind) } + extra)
    }

    /// A save as a timeline row, with a summary of its changes by kind and entity.
    static func row(_ transaction: PersistentHistoryTransaction, operations: Int, extraKinds: [String] = []) -> JSONValue {
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
        return row(sequence: transaction.token.sequence, timestamp: transaction.timestamp, author: transaction.author,
                   contextName: transaction.contextName, groups: transaction.groups, extraKinds: extraKinds, summary: .fields([
                       "summarized": .bool(true), "operations": .int(operations),
                       "inserted": .int(inserted), "updated": .int(updated), "deleted": .int(deleted),
                       "entities": .array(entities.keys.sorted().map { .fields(["name": .string($0), "changes": .int(entities[$0]!)]) }),
                   ]))
    }

    /// A big save as a timeline row from its header alone: its operations are counted, not
    /// summarized (the save page folds them).
    static func row(_ header: SaveHeader, operations: Int, extraKinds: [String] = []) -> JSONValue {
        row(sequence: header.sequence, timestamp: header.timestamp, author: header.author, contextName: header.contextName,
            groups: header.groups, extraKinds: extraKinds, summary: .fields(["summarized": .bool(false), "operations": .int(operations)]))
    }

    private static func row(sequence: UInt64, timestamp: Date, author: String?, contextName: String?,
                            groups: [ChangeGroupInfo], extraKinds: [String], summary: JSONValue) -> JSONValue {
        .fields([
            "sequence": .int(sequence),
            "time": InspectorValues.time(timestamp),
            "author": author.map { .string($0) } ?? .null,
            "context": contextName.map { .string($0) } ?? .null,
            "action": .string(groups.last(where: { !$0.actionName.isEmpty })?.actionName ?? ""),
            "kinds": .array(kinds(groups, extra: extraKinds).map { .string($0) }),
            "groups": .array(groups.map { .int($0.id) }),
            "summary": summary,
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
