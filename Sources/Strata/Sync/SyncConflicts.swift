import Foundation

/// Two replicas changed the same key of the same object (or one deleted an object the other
/// changed) before either saw the other's change: found when a pull takes in the remote's
/// segments over local ones not yet pushed, and resolved by the pull's merge policy.
public struct SyncConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object both changed.
    public var objectID: ManagedObjectID
    /// The keys both changed (for a deleted object, every key the other side changed).
    public var keys: [String]
    /// Why no merge policy resolves it, or nil when one does: a relationship both sides
    /// set, or an object one side deleted and the other changed.
    public var unresolvableReason: String?

    /// `Employee/p3: salary, name`.
    public var description: String {
        "\(objectID.shortReference): \(keys.joined(separator: ", "))" + (unresolvableReason.map { " (\($0))" } ?? "")
    }
}

/// What one side's operations did to each object, for finding conflicts.
struct SyncTouches {
    /// Per object, per updated slot: the value before the side's first change and after its last.
    var updates: [ManagedObjectID: [Int: (old: PropertyValue, new: PropertyValue)]] = [:]
    /// Objects and unordered to-many slots changed by `.relate` (these merge as sets).
    var related: [ManagedObjectID: Set<Int>] = [:]
    var deleted: Set<ManagedObjectID> = []
    /// Every object named anywhere (values of inserts and updates, members of relates).
    var mentioned: Set<ManagedObjectID> = []

    init(_ groups: [SegmentGroup]) {
        for group in groups {
            for operation in group.operations {
                operation.forEachID { mentioned.insert($0) }
                switch operation {
                case .insert: break
                case .delete(let id, _):
                    deleted.insert(id)
                    updates[id] = nil
                case .update(let id, let changes):
                    for change in changes {
                        let first = updates[id]?[change.slot]?.old ?? change.old
                        updates[id, default: [:]][change.slot] = (first, change.new)
                    }
                case .relate(let id, let slot, _, _), .splice(let id, let slot, _):
                    // Splices merge character by character, as relates merge as sets.
                    related[id, default: []].insert(slot)
                }
            }
        }
    }

    /// The slots of `id` this side changed (updates and relates).
    func slots(of id: ManagedObjectID) -> Set<Int> {
        Set(updates[id].map { Array($0.keys) } ?? []).union(related[id] ?? [])
    }
}

/// The conflicts between local segments not yet pushed and the remote's new segments, and
/// the merge group that resolves them under a policy.
struct SyncConflictAnalysis {
    let local: SyncTouches
    let remote: SyncTouches
    private(set) var conflicts: [SyncConflict] = []

    init(local: [SegmentGroup], remote: [SegmentGroup]) {
        self.local = SyncTouches(local)
        self.remote = SyncTouches(remote)
        var found: [ManagedObjectID: SyncConflict] = [:]
        for (deleted, other) in [(self.local.deleted, self.remote), (self.remote.deleted, self.local)] {
            for id in deleted where other.mentioned.contains(id) {
                let keys = other.slots(of: id).sorted().map { id.entity.slotNames[$0] }
                found[id] = SyncConflict(objectID: id, keys: keys.isEmpty ? ["(deleted)"] : keys,
                                         unresolvableReason: "deleted by one replica, changed or referenced by the other")
            }
        }
        for (id, localSlots) in self.local.updates where found[id] == nil {
            guard let remoteSlots = self.remote.updates[id] else { continue }
            let common = Set(localSlots.keys).intersection(remoteSlots.keys).sorted()
            guard !common.isEmpty else { continue }
            let relationships = common.filter { Self.isRelationship(id, slot: $0) }
            found[id] = SyncConflict(objectID: id, keys: common.map { id.entity.slotNames[$0] },
                                     unresolvableReason: relationships.isEmpty ? nil : "a relationship set by both replicas")
        }
        conflicts = found.values.sorted { $0.objectID < $1.objectID }
    }

    private static func isRelationship(_ id: ManagedObjectID, slot: Int) -> Bool {
        if case .relationship = id.entity.slotKinds[slot] { return true }
        return false
    }

    /// The `.mergeConflict` error naming the conflicts (for `.error`, or ones no policy resolves).
    func error(policy: MergePolicy, remote location: String) -> StrataError {
        let unresolvable = conflicts.filter { $0.unresolvableReason != nil }
        let shown = (policy == .error ? conflicts : unresolvable)
        let list = shown.prefix(10).map(\.description).joined(separator: "; ")
        let advice = policy == .error
            ? "Pull again with a merge policy (strata: --merge-policy storeTrump: the remote's values win, objectTrump: yours win, rollback or overwrite; docs/SYNC.md)."
            : "No merge policy resolves these: change the objects so that only one replica's change remains, then pull again."
        var error = StrataError(.mergeConflict,
                                "\(shown.count) object\(shown.count == 1 ? "" : "s") changed both here and on the remote \(location): \(list). Nothing was changed. \(advice)",
                                context: .init { $0.objects = shown.map { $0.objectID.shortReference }; $0.remote = location })
        error.context.mergePolicy = policy.description
        return error
    }

    /// The update operations that make both logs end in the policy's values: applied after
    /// the remote's segments here, and after this replica's segments on the remote.
    /// `current` gives a record's values here before the remote's segments are taken in.
    func resolution(policy: MergePolicy, current: (ManagedObjectID) throws -> [PropertyValue]?) throws -> [ChangeOperation] {
        var operations: [ChangeOperation] = []
        for conflict in conflicts {
            let id = conflict.objectID
            guard let localSlots = local.updates[id], let remoteSlots = remote.updates[id],
                  let values = try current(id) else { continue }
            let attributes = { (slots: Set<Int>) in slots.filter { !Self.isRelationship(id, slot: $0) } }
            let common = Set(localSlots.keys).intersection(remoteSlots.keys)
            var winners: [Int: PropertyValue] = [:]
            switch policy {
            case .error: continue
            case .mergeByPropertyStoreTrump:
                for slot in common { winners[slot] = remoteSlots[slot]!.new }
            case .mergeByPropertyObjectTrump:
                for slot in common { winners[slot] = values[slot] }
            case .rollback:
                for slot in attributes(Set(localSlots.keys)) { winners[slot] = remoteSlots[slot]?.new ?? localSlots[slot]!.old }
            case .overwrite:
                for slot in attributes(Set(localSlots.keys).union(remoteSlots.keys)) { winners[slot] = values[slot] }
            }
            // Here the remote's value is the last one written; on the remote, this replica's.
            let changes = winners.keys.sorted().map { slot in
                SlotChange(slot: slot, old: remoteSlots[slot]?.new ?? values[slot], new: winners[slot]!)
            }
            if !changes.isEmpty { operations.append(.update(id, changes: SlotChanges(changes))) }
        }
        return operations
    }
}
