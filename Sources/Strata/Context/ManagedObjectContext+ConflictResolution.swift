import Foundation
import OrderedCollections

/// What the store will hold for records once the context's unsaved log, and the fixes
/// added so far, are applied to the records as they are in the store now: the store's own
/// `RowTable` semantics, run on copies of the records involved. A class: the fixes
/// being added and the questions about rows go through one instance.
final class StoreOutcome {
    unowned let context: ManagedObjectContext
    private var table = RowTable()
    private var loaded: Set<ManagedObjectID> = []
    private var operationsByRecord: [ManagedObjectID: [ChangeOperation]]?

    init(context: ManagedObjectContext) {
        self.context = context
    }

    /// The record as the save would leave it (nil: deleted or absent).
    func row(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        if !loaded.contains(id) {
            loaded.insert(id)
            if operationsByRecord == nil {
                var byRecord: [ManagedObjectID: [ChangeOperation]] = [:]
                for batch in context.log.unsaved {
                    for operation in batch.operations { byRecord[operation.objectID, default: []].append(operation) }
                }
                operationsByRecord = byRecord
            }
            if let stored = try context.coordinator.values(for: id) {
                try table.apply(.insert(id, values: stored), model: context.model)
                // The log's splices name the store's characters, not a first value's.
                for slot in id.entity.textSlots {
                    table.seedText(TextKey(id: id, slot: slot), try context.coordinator.textSequence(for: id, slot: slot))
                }
            }
            for operation in operationsByRecord?[id] ?? [] { try? table.apply(operation, model: context.model) }
        }
        return table.values(for: id).map { ManagedObjectContext.withTransientDefaults($0, of: id.entity) }
    }

    /// Adds a fix to the outcome.
    func apply(_ operation: ChangeOperation) throws {
        _ = try row(operation.objectID)
        try table.apply(operation, model: context.model)
    }
}

extension ManagedObjectContext {
    // MARK: Resolving conflicts (under the save lock; its notices are posted after it)

    /// Decides each conflicting record's values by ``mergePolicy`` and makes the save write
    /// exactly them: the store's outcome of the unsaved log is computed on the records as
    /// they are now, and where it differs from the decision, fixes are logged as one
    /// non-undoable `ChangeGroupKind.merge` group. A to-one that ends elsewhere than the
    /// log would leave it also fixes both destinations' inverses, in the store and in the
    /// context. The context's objects take the decided values; their committed values
    /// become the store's.
    func resolve(_ conflicts: [StoreConflict], generation: UInt64) throws {
        let deletedInStore = Set(conflicts.filter { $0.persisted == nil && $0.object?.state.isDeleted != true }.map(\.objectID))
        if !deletedInStore.isEmpty {
            // First, so that the fixes below never point at them. (The merge logs its
            // detachments unregistered itself.)
            mergeChanges(fromContextDidSave: SaveChanges(deleted: deletedInStore))
        }
        let outcome = StoreOutcome(context: self)
        var fixes: [ChangeOperation] = []
        var affected: OrderedDictionary<ManagedObjectID, Set<Int>> = [:]
        func fix(_ operation: ChangeOperation, slot: Int) throws {
            fixes.append(operation)
            try outcome.apply(operation)
            affected[operation.objectID, default: []].insert(slot)
        }
        var notice = ObjectChanges()
        var committedValues: [ManagedObjectID: [PropertyValue]] = [:]
        for conflict in conflicts {
            guard let persisted = conflict.persisted else { continue }
            let id = conflict.objectID
            let entity = id.entity
            if conflict.object?.state.isDeleted == true {
                try detachDeleted(id, persisted: persisted, outcome: outcome, fix: fix)
                continue
            }
            guard let written = try outcome.row(id) else { continue }
            var decided = decide(conflict, persisted: persisted)
            // Never a reference to a record this save or the store deleted.
            for relationship in entity.relationships where !relationship.isTransient && relationship.slot < decided.count {
                let targets = decided[relationship.slot].objectIDs
                let alive = try targets.filter { try outcome.row($0) != nil }
                guard alive.count != targets.count else { continue }
                decided[relationship.slot] = relationship.isToMany ? .objects(OrderedSet(alive)) : .null
            }
            for slot in 0..<min(entity.slotCount, decided.count) where !RowTable.isTransient(slot, of: entity) {
                affected[id, default: []].insert(slot)
                var mirror: Int?
                if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany {
                    let relationship = entity.relationships[index]
                    // A to-many whose inverse is a to-one follows its members' to-ones, which
                    // are decided and reconciled below; deciding it too could contradict them.
                    if let inverseSlot = relationship.inverseSlot,
                       case .relationship(let back) = entity.destination(of: relationship).slotKinds[inverseSlot],
                       !entity.destination(of: relationship).relationships[back].isToMany { continue }
                    mirror = relationship.inverseSlot
                }
                guard !Self.sameStoredValue(written[slot], decided[slot], slot: slot, of: entity) else { continue }
                let now = OrderedSet(written[slot].objectIDs), wanted = OrderedSet(decided[slot].objectIDs)
                if entity.isUnorderedToMany(slot: slot) {
                    try fix(.relate(id, slot: slot, added: Array(wanted.subtracting(now)), removed: Array(now.subtracting(wanted))),
                            slot: slot)
                } else {
                    try fix(.update(id, changes: [SlotChange(slot: slot, old: written[slot], new: decided[slot])]), slot: slot)
                }
                // A many-to-many membership is written on both ends.
                guard let mirror else { continue }
                for member in wanted.subtracting(now) where try outcome.row(member) != nil {
                    try fix(.relate(member, slot: mirror, added: [id], removed: []), slot: mirror)
                }
                for member in now.subtracting(wanted) where try outcome.row(member) != nil {
                    try fix(.relate(member, slot: mirror, added: [], removed: [id]), slot: mirror)
                }
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isTransient {
                guard let inverseSlot = relationship.inverseSlot else { continue }
                let slot = relationship.slot
                let earlier = [persisted[slot], conflict.committed[slot], written[slot]].compactMap(\.objectIDs.first)
                try reconcileInverse(of: id, slot: slot, inverseSlot: inverseSlot, earlier: earlier, decided: decided[slot],
                                     outcome: outcome, fix: fix)
            }
            if let object = conflict.object {
                // What the context now knows the store holds: its committed values.
                var read = persisted
                for slot in 0..<min(read.count, object.storage.count) where RowTable.isTransient(slot, of: entity) {
                    read[slot] = object.storage[slot]
                }
                committedValues[id] = read
                object.loadGeneration = generation
            }
        }
        // Every registered object a decision or fix touched takes the outcome, after all of
        // them (a later conflict's inverse fix may touch an earlier one's record).
        for (id, slots) in affected {
            guard let object = registeredObject(for: id), !object.state.isFault, let row = try outcome.row(id) else { continue }
            let committed = committedValues[id] ?? object.committedSnapshot
            for slot in slots where slot < object.storage.count && slot < row.count { object.storage[slot] = row[slot] }
            if committedValues[id] != nil || object.committedOld != nil { object.committedSnapshot = committed }
            if object.isUpdated { noteDirty(object) }
            notice.refreshed.insert(id)
        }
        if !fixes.isEmpty {
            log.append(fixes, group: ChangeGroupInfo(id: coordinator.allocateGroupID(), kind: .merge), isUndoable: false)
        }
        if !notice.isEmpty { postObjectsDidChange(notice) }
    }

    /// The context deletes a record whose relationships changed in the store: records the
    /// store related it to since the context read it would still point at it. They are
    /// nullified, whatever the delete rule. The context never saw them, so its delete
    /// neither cascades to them nor is refused by them.
    private func detachDeleted(_ id: ManagedObjectID, persisted: [PropertyValue], outcome: StoreOutcome,
                               fix: (ChangeOperation, Int) throws -> Void) throws {
        for relationship in id.entity.relationships where !relationship.isTransient {
            guard let inverseSlot = relationship.inverseSlot, relationship.slot < persisted.count else { continue }
            for member in persisted[relationship.slot].objectIDs {
                guard let row = try outcome.row(member), inverseSlot < row.count else { continue }
                switch row[inverseSlot] {
                case .object(id):
                    try fix(.update(member, changes: [SlotChange(slot: inverseSlot, old: .object(id), new: .null)]), inverseSlot)
                case .objects(let members) where members.contains(id):
                    try fix(.relate(member, slot: inverseSlot, added: [], removed: [id]), inverseSlot)
                default:
                    break
                }
            }
        }
    }

    /// The values the policy decides for a record still in the store (persistent slots).
    private func decide(_ conflict: StoreConflict, persisted: [PropertyValue]) -> [PropertyValue] {
        // A record whose object is gone was unchanged: the store's values stand.
        guard let object = conflict.object else { return persisted }
        let entity = object.entity
        let current = object.storage
        let committed = conflict.committed
        var decided = persisted
        for slot in 0..<min(entity.slotCount, current.count, persisted.count) where !RowTable.isTransient(slot, of: entity) {
            var isAttribute = true
            if case .relationship(let index) = entity.slotKinds[slot] {
                isAttribute = false
                let relationship = entity.relationships[index]
                if relationship.isToMany {
                    // By membership under every policy: each member's record says where it is.
                    decided[slot] = Self.mergedMembers(committed: committed[slot], object: current[slot],
                                                       store: persisted[slot], ordered: relationship.isOrdered)
                    continue
                }
            }
            let objectChanged = current[slot] != committed[slot]
            let storeChanged = persisted[slot] != committed[slot]
            decided[slot] = switch mergePolicy {
            case .error, .mergeByPropertyObjectTrump: objectChanged ? current[slot] : persisted[slot]
            case .mergeByPropertyStoreTrump: storeChanged ? persisted[slot] : current[slot]
            case .overwrite: isAttribute || objectChanged ? current[slot] : persisted[slot]
            case .rollback: persisted[slot]
            }
        }
        return decided
    }

    /// A to-one of `id` ends at `decided`: every earlier destination (in the store, as the
    /// context read it, as the log would leave it) no longer lists `id` in its inverse, and
    /// `decided` does, taking it from a previous owner when the inverse is to-one.
    private func reconcileInverse(of id: ManagedObjectID, slot: Int, inverseSlot: Int, earlier: [ManagedObjectID],
                                  decided: PropertyValue, outcome: StoreOutcome,
                                  fix: (ChangeOperation, Int) throws -> Void) throws {
        let target = decided.objectIDs.first
        for previous in OrderedSet(earlier) where previous != target {
            guard let row = try outcome.row(previous) else { continue }
            switch row[inverseSlot] {
            case .objects(let members) where members.contains(id):
                try fix(.relate(previous, slot: inverseSlot, added: [], removed: [id]), inverseSlot)
            case .object(id):
                try fix(.update(previous, changes: [SlotChange(slot: inverseSlot, old: .object(id), new: .null)]), inverseSlot)
            default:
                break
            }
        }
        guard let target, let row = try outcome.row(target) else { return }
        switch row[inverseSlot] {
        case .objects(let members) where !members.contains(id):
            try fix(.relate(target, slot: inverseSlot, added: [id], removed: []), inverseSlot)
        case .object(let owner) where owner != id:
            if let ownerRow = try outcome.row(owner), ownerRow[slot] == .object(target) {
                try fix(.update(owner, changes: [SlotChange(slot: slot, old: .object(target), new: .null)]), slot)
            }
            try fix(.update(target, changes: [SlotChange(slot: inverseSlot, old: .object(owner), new: .object(id))]), inverseSlot)
        case .null:
            try fix(.update(target, changes: [SlotChange(slot: inverseSlot, old: .null, new: .object(id))]), inverseSlot)
        default:
            break
        }
    }
}
