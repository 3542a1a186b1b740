import Foundation
import OrderedCollections
import Synchronization

/// What a store assigned while it saved a request: the permanent id of every temporary
/// undo group id in it.
///
/// Stores assign group ids inside their write, after taking in every other writer's saves
/// (for a document: inside the SQLite write transaction, after catching up), so that no
/// two writers of one store — contexts, coordinators, connections or processes — can ever
/// record the same group id (docs/RELIABILITY.md, "Writers never collide"). Object keys are
/// not assigned here: whoever creates records reserves their keys with
/// ``PersistentStore/allocatePrimaryKeys(for:count:)`` before saving them
/// (docs/ARCHITECTURE.md, "When new objects get their keys").
public struct StoreSaveResult: Sendable, Hashable {
    /// Temporary undo group id → the permanent id the store recorded it under.
    public var groupIDs: [UInt64: UInt64]
    /// The stored rows of the records the save wrote, by permanent ID, when the store keeps
    /// them in memory (a document's overlay): the saving context takes an object's row as
    /// its values when they are equal, so that one buffer serves both instead of two copies
    /// per record (docs/ARCHITECTURE.md, "Saves"). Not part of equality.
    var savedRows = RecordRows()

    /// Creates a result.
    public init(groupIDs: [UInt64: UInt64] = [:]) {
        self.groupIDs = groupIDs
    }

    /// Equal when they assigned the same group ids.
    public static func == (lhs: StoreSaveResult, rhs: StoreSaveResult) -> Bool {
        lhs.groupIDs == rhs.groupIDs
    }

    /// Hashes the assignments.
    public func hash(into hasher: inout Hasher) {
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
    /// Gives every temporary group id in the request a permanent one and rewrites the
    /// request with them; returns the assignments. Refuses a temporary object ID: stores
    /// never assign object keys (docs/ARCHITECTURE.md, "When new objects get their keys").
    ///
    /// - Parameter groupID: the next permanent group id.
    /// - Throws: `.invalidArgument` naming the first temporary object ID; nothing is
    ///   assigned then.
    /// - Complexity: O(operations): one pass that allocates nothing when there is nothing
    ///   to assign.
    mutating func assignPermanentGroupIDs(groupID: () throws -> UInt64) throws -> StoreSaveResult {
        try refuseTemporaryObjectIDs()
        var result = StoreSaveResult()
        for group in groups where UndoGroupIDs.isTemporary(group.id) && result.groupIDs[group.id] == nil {
            result.groupIDs[group.id] = try groupID()
        }
        guard !result.groupIDs.isEmpty else { return result }
        for index in groups.indices { groups[index] = result.renamingGroups(in: groups[index]) }
        return result
    }

    /// Throws when an operation names a temporary object ID: its record has no key, and a
    /// store does not give one (it could not tell the saving context which).
    /// - Throws: `.invalidArgument` naming the ID.
    func refuseTemporaryObjectIDs() throws {
        var temporary: ManagedObjectID?
        for group in groups {
            // By index: a for-in copied each operation (its ID and its values).
            for index in group.operations.indices {
                group.operations[index].forEachID { if temporary == nil, $0.isTemporaryID { temporary = $0 } }
                guard let id = temporary else { continue }
                throw StrataError(
                    .invalidArgument,
                    "The save names the temporary object ID \(id) (\(id.entity.name)); a store does not assign keys: reserve them with allocatePrimaryKeys(for:count:) and save the record under a permanent ID.",
                    context: .init { $0.entity = id.entity.name; $0.object = id.description; $0.group = group.id })
            }
        }
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
