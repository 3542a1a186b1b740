import Foundation
import OrderedCollections

/// The derived values a batch group changes (docs/SEMANTICS.md §5a, "Batch requests"): a
/// store runs batch requests without a context, so it computes them itself, as Core Data's
/// SQLite store does with its triggers, and writes them in the same group as the batch's own
/// operations — undo, redo, replay and merging contexts see one change.
///
/// Which records: every record the group inserts or changes an input of (an attribute that
/// is not derived, a relationship) when its entity has derived attributes, and every record
/// a derivation reaches it from (``DerivationPlan/dependents``, walked through the values
/// both before and after the group: an employee batch-deleted from a department still
/// changes that department's `employees.@count`). Values are computed from the rows as the
/// group leaves them.
final class BatchDerivations {
    private let plan: DerivationPlan
    /// A record's values before the group, or nil when it does not exist.
    private let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// The batch's instant: `now()` in a derivation.
    private let now: Date
    /// Records the group changes, as it leaves them (nil: deleted).
    private var after: [ManagedObjectID: [PropertyValue]?] = [:]

    init(plan: DerivationPlan, values: @escaping (ManagedObjectID) throws -> [PropertyValue]?, now: Date) {
        self.plan = plan
        self.values = values
        self.now = now
    }

    /// The operations with the derived values they change: an inserted record's set in its
    /// insert, one update per other record appended; and the records those updates change.
    /// - Throws: `.validation` naming the record, attribute and derivation when a value cannot
    ///   be computed or does not fit the attribute (nothing is written then); store errors.
    /// - Complexity: O(operations + records reached × the rows their derivations read).
    static func complete(_ operations: [ChangeOperation], model: ManagedObjectModel?, now: Date,
                         values: @escaping (ManagedObjectID) throws -> [PropertyValue]?) throws -> ([ChangeOperation], [ManagedObjectID]) {
        guard let plan = model?.derivationPlan, !plan.isEmpty, !operations.isEmpty else { return (operations, []) }
        return try BatchDerivations(plan: plan, values: values, now: now).complete(operations)
    }

    private func complete(_ operations: [ChangeOperation]) throws -> ([ChangeOperation], [ManagedObjectID]) {
        var inserts: [ManagedObjectID: Int] = [:]
        var triggers: OrderedSet<ManagedObjectID> = []
        for (position, operation) in operations.enumerated() {
            let id = operation.objectID
            switch operation {
            case .insert(_, let row):
                after[id] = .some(row)
                inserts[id] = position
                triggers.append(id)
            case .delete:
                after[id] = .some(nil)
                triggers.append(id)
            case .update(_, let changes):
                guard var row = try current(id) else { continue }
                let derived = plan.derived[id.entity.index]
                for change in changes where change.slot < row.count { row[change.slot] = change.new }
                after[id] = .some(row)
                if changes.contains(where: { change in !derived.contains { $0.slot == change.slot } }) { triggers.append(id) }
            case .relate(_, let slot, let added, let removed):
                guard var row = try current(id), slot < row.count else { continue }
                var members = if case .objects(let list) = row[slot] { list } else { OrderedSet<ManagedObjectID>() }
                row[slot] = .null
                for member in removed { members.remove(member) }
                members.append(contentsOf: added)
                row[slot] = .objects(members)
                after[id] = .some(row)
                triggers.append(id)
            case .splice:
                // Batch requests set whole values; texts change by splices only in saves.
                continue
            }
        }
        var targets: OrderedSet<ManagedObjectID> = []
        for id in triggers {
            let index = id.entity.index
            if !plan.derived[index].isEmpty { targets.append(id) }
            for chain in plan.dependents[index] { targets.append(contentsOf: try reached(from: id, through: chain)) }
        }
        var result = operations
        var updated: [ManagedObjectID] = []
        var problems: [StrataError.Problem] = []
        for id in targets {
            guard var row = try current(id) else { continue }  // deleted by the group, or gone
            let entity = id.entity
            var changes: [SlotChange] = []
            for (slot, expression) in plan.derived[entity.index] where slot < row.count {
                let attribute = entity.attributes[entity.slotKindIndex(slot)]
                guard let coerced = DerivationCheck.derivedValue(
                    of: expression, for: attribute, entityName: entity.name, objectID: id,
                    subject: RowSubject(objectID: id, values: row, rowSource: { [unowned self] in try self.current($0) }),
                    now: now, problems: &problems) else { continue }
                if row[slot] != coerced { changes.append(SlotChange(slot: slot, old: row[slot], new: coerced)) }
            }
            guard !changes.isEmpty else { continue }
            for change in changes { row[change.slot] = change.new }
            after[id] = .some(row)
            if let position = inserts[id] {
                result[position] = .insert(id, values: row)
            } else {
                result.append(.update(id, changes: SlotChanges(changes)))
                updated.append(id)
            }
        }
        if !problems.isEmpty {
            let first = problems[0]
            throw StrataError(.validation, "The batch changes an input of \(first.entityName).\(first.key ?? "") of \(first.object ?? ""), whose derived value could not be computed (\(problems.count) problem\(problems.count == 1 ? "" : "s")).",
                              problems: problems, context: .init { $0.entity = first.entityName; $0.key = first.key; $0.object = first.object })
        }
        return (result, updated)
    }

    /// A record's values as the group leaves them.
    private func current(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        if let known = after[id] { return known }
        return try base(id)
    }

    /// A record's values before the group (nil for a record the group inserts).
    private func base(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        id.isTemporaryID ? nil : try values(id)
    }

    /// The records reached from `id` along a chain of relationship names, through the values
    /// before and after the group.
    private func reached(from id: ManagedObjectID, through chain: [String]) throws -> [ManagedObjectID] {
        var current: OrderedSet<ManagedObjectID> = [id]
        for key in chain {
            var next: OrderedSet<ManagedObjectID> = []
            for source in current {
                guard let slot = source.entity.slot(forKey: key) else { continue }
                for row in [try base(source), try self.current(source)] {
                    guard let row, slot < row.count else { continue }
                    next.append(contentsOf: row[slot].objectIDs)
                }
            }
            current = next
        }
        return Array(current)
    }
}
