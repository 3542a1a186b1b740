import Foundation
import OrderedCollections
import Synchronization

/// What a store assigned while it saved a request: the permanent ID of every temporary
/// object ID and the permanent id of every temporary undo group id in it.
///
/// Stores assign both inside their write, after taking in every other writer's saves
/// (for a document: inside the SQLite write transaction, after catching up), so that no
/// two writers of one store — contexts, coordinators, connections or processes — can ever
/// be given the same key or group id (docs/RELIABILITY.md, "Writers never collide").
public struct StoreSaveResult: Sendable, Hashable {
    /// Temporary object ID → the permanent ID the store gave it.
    public var permanentIDs: [ManagedObjectID: ManagedObjectID]
    /// Temporary undo group id → the permanent id the store recorded it under.
    public var groupIDs: [UInt64: UInt64]
    /// The stored rows of the records the save wrote, by permanent ID, when the store keeps
    /// them in memory (a document's overlay): the saving context takes an object's row as
    /// its values when they are equal, so that one buffer serves both instead of two copies
    /// per record (docs/ARCHITECTURE.md, "Saves"). Not part of equality.
    var savedRows = RecordRows()

    /// Creates a result.
    public init(permanentIDs: [ManagedObjectID: ManagedObjectID] = [:], groupIDs: [UInt64: UInt64] = [:]) {
        self.permanentIDs = permanentIDs
        self.groupIDs = groupIDs
    }

    /// Equal when they assigned the same IDs and group ids.
    public static func == (lhs: StoreSaveResult, rhs: StoreSaveResult) -> Bool {
        lhs.permanentIDs == rhs.permanentIDs && lhs.groupIDs == rhs.groupIDs
    }

    /// Hashes the assignments.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(permanentIDs)
        hasher.combine(groupIDs)
    }

    /// The group with the ids this result gave (its own and the one it reverts).
    func renamingGroups(in group: SegmentGroup) -> SegmentGroup {
        guard !groupIDs.isEmpty else { return group }
        var renamed = group
        if let id = groupIDs[group.id] { renamed.id = id }
        if let reverts = group.revertsGroup, let id = groupIDs[reverts] { renamed.revertsGroup = id }
        return renamed
    }

    /// Adds what another store assigned.
    mutating func merge(_ other: StoreSaveResult) {
        // Into an empty result (one store: every save) by assignment, not entry by entry.
        if permanentIDs.isEmpty {
            permanentIDs = other.permanentIDs
        } else {
            permanentIDs.merge(other.permanentIDs) { first, _ in first }
        }
        groupIDs.merge(other.groupIDs) { first, _ in first }
        savedRows.addMissing(from: other.savedRows)
    }
}

/// Undo group ids. Contexts label their groups with *temporary* ids (the high flag bit
/// set, unique in the process); a store replaces them with permanent ones, unique in the
/// document, inside its write. Permanent ids are what segments, `strata_group` rows and
/// restored undo stacks carry.
public enum UndoGroupIDs {
    /// The bit that marks a temporary id. Permanent ids stay far below it.
    public static let temporaryFlag: UInt64 = 1 << 62

    /// Whether `id` is a temporary id that a save has yet to replace.
    public static func isTemporary(_ id: UInt64) -> Bool { id & temporaryFlag != 0 }

    private static let counter = Atomic<UInt64>(0)

    /// A new temporary id, unique in this process.
    static func temporary() -> UInt64 {
        temporaryFlag | counter.add(1, ordering: .relaxed).newValue
    }
}

extension StoreSaveRequest {
    /// Gives every temporary object ID and temporary group id in the request a permanent
    /// one and rewrites the request with them; returns the assignments.
    ///
    /// Keys are handed out per root entity in the order the IDs first appear, so the same
    /// request gets the same keys from the same counters.
    ///
    /// - Parameters:
    ///   - storeTag: the tag of the store's permanent IDs.
    ///   - keys: reserves `count` consecutive keys for a root entity, above the given key
    ///     (the largest the request itself inserts a record of that hierarchy under, or 0);
    ///     called with a count of 1 per new record, so successive calls must continue
    ///     where the previous one ended.
    ///   - groupID: the next permanent group id.
    /// - Complexity: O(operations) when there is something to assign; one pass that
    ///   allocates nothing when there is not.
    mutating func assignPermanentIdentities(
        storeTag: UInt32, keys: (EntityDescription, Int, Int64) throws -> ClosedRange<Int64>, groupID: () throws -> UInt64
    ) throws -> StoreSaveResult {
        var result = StoreSaveResult()
        for group in groups where UndoGroupIDs.isTemporary(group.id) && result.groupIDs[group.id] == nil {
            result.groupIDs[group.id] = try groupID()
        }
        // Records the request itself inserts under keys of its own (a replayed log): new keys
        // go above them too. A first pass, so that the keys below can be handed out while
        // walking the operations once.
        var ownKeys: [ObjectIdentifier: Int64] = [:]
        var newRecords = 0
        for group in groups {
            for case .insert(let id, _) in group.operations {
                guard !id.isTemporaryID else {
                    newRecords += 1
                    continue
                }
                let root = ObjectIdentifier(id.entity.rootEntity)
                ownKeys[root] = max(ownKeys[root] ?? 0, id.primaryKey)
            }
        }
        // One key at a time, in the order the IDs first appear: each root entity's keys
        // are consecutive from its counter, as when reserved in one range per root, without
        // first collecting every temporary ID in a set and a list per root (two more copies
        // of a million IDs at the peak of a bulk save).
        if newRecords > 0 { result.permanentIDs.reserveCapacity(newRecords) }
        var failure: (any Error)?
        var scopes = ObjectIDScopeCache()
        for group in groups {
            for operation in group.operations {
                operation.forEachID { id in
                    guard failure == nil, id.isTemporaryID, result.permanentIDs[id] == nil else { return }
                    let root = id.entity.rootEntity
                    do {
                        let key = try keys(root, 1, ownKeys[ObjectIdentifier(root)] ?? 0).lowerBound
                        result.permanentIDs[id] = scopes.id(id.entity, storeTag: storeTag, primaryKey: key)
                    } catch {
                        failure = error
                    }
                }
                if let failure { throw failure }
            }
        }
        guard !result.permanentIDs.isEmpty || !result.groupIDs.isEmpty else { return result }
        let assigned = result.permanentIDs
        for index in groups.indices {
            groups[index] = result.renamingGroups(in: groups[index])
            if !assigned.isEmpty {
                // Only operations that name a new record: the others keep sharing their rows
                // with the context's log and objects (after a bulk save gave most records
                // their keys before the write, a few inserted and deleted again are left).
                groups[index].operations = groups[index].operations.map { $0.holdsTemporaryID ? $0.mapIDs { assigned[$0] ?? $0 } : $0 }
            }
        }
        return result
    }
}

extension Dictionary where Key == Int, Value == Int64 {
    /// Reserves `count` keys (at least one) above the counter of a root entity index (and
    /// above `floor`) and moves the counter past them.
    mutating func reserveKeys(root: Int, count: Int, above floor: Int64 = 0) -> ClosedRange<Int64> {
        let first = Swift.max(self[root] ?? 0, floor) + 1
        let last = first + Int64(Swift.max(count, 1)) - 1
        self[root] = last
        return first...last
    }
}
