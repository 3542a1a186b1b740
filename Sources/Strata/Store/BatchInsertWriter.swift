import Foundation
import OrderedCollections

/// Writes the rows of a batch insert through a store's own steps: permanent keys (one
/// allocation per chunk), one insert operation per row, and — after the last row — one
/// operation per existing record whose inverse relationship gained new records, as a
/// context save would record both sides.
///
/// **Bounded memory.** Rows are pulled from the source ``StoreBatchInsert`` and written in
/// chunks of ``chunkSize`` rows, each chunk one segment whose only group carries the
/// request's group id (the first save gives it its permanent id, later chunks reuse it;
/// history and ``ContextUndoManager/restoreHistory(_:)`` merge consecutive groups with one
/// id). Inside a context's batch the store's write is held (``PersistentStore/performWrite(_:)``),
/// so the chunks commit together or not at all. What stays in memory across chunks: the
/// inserted IDs (for the result and merging), the existing records the rows relate to (to
/// write their inverse side once), and — only for an undoable request — the operations.
struct BatchInsertWriter {
    /// Rows per segment for a document.
    static let documentChunkSize = 10_000

    let storeTag: UInt32
    /// Rows per segment; `Int.max` writes one segment.
    let chunkSize: Int
    /// A record's values in the store before the request, or nil when it does not exist.
    let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// Reserves `count` consecutive keys of the entity's hierarchy.
    let allocate: (EntityDescription, Int) throws -> ClosedRange<Int64>
    /// Saves a group; returns the permanent id it was saved under.
    let save: (SegmentGroup) throws -> UInt64

    func run(_ request: StoreBatchRequest, rows: StoreBatchInsert) throws -> StoreBatchOutcome {
        let entity = rows.entity
        var state = InverseState(entity: entity, values: values)
        var groupID = request.groupID
        var savedGroupID: UInt64?
        var inserted: [ManagedObjectID] = []
        var kept: [ChangeOperation] = []
        let keepsOperations = request.kind == .user
        var chunk: [[PropertyValue]] = []
        var firstRowNumber = 1
        let capacity = min(chunkSize, 10_000)
        chunk.reserveCapacity(capacity)

        func write(_ operations: [ChangeOperation]) throws {
            guard !operations.isEmpty else { return }
            let group = SegmentGroup(id: groupID, kind: request.kind, revertsGroup: nil,
                                     actionName: request.actionName, operations: operations)
            groupID = try save(group)
            savedGroupID = groupID
            if keepsOperations { kept += operations }
        }

        func flush(last: Bool) throws {
            var operations: [ChangeOperation] = []
            if !chunk.isEmpty {
                let keys = try allocate(entity, chunk.count)
                state.newKeys.append(keys)
                operations.reserveCapacity(chunk.count)
                for (offset, (row, key)) in zip(chunk, keys).enumerated() {
                    let id = ManagedObjectID(entity: entity, storeTag: storeTag, primaryKey: key)
                    try state.relate(id, row: row, number: firstRowNumber + offset)
                    operations.append(.insert(id, values: row))
                    inserted.append(id)
                }
                firstRowNumber += chunk.count
                chunk.removeAll(keepingCapacity: true)
            }
            if last { operations += state.operations() }
            try write(operations)
        }

        while let row = try rows.next() {
            chunk.append(row)
            if chunk.count >= chunkSize { try flush(last: false) }
        }
        try flush(last: true)

        var changes = SaveChanges()
        changes.inserted = Set(inserted)
        changes.updated = state.changedRecords
        let group = savedGroupID.map {
            SegmentGroup(id: $0, kind: request.kind, revertsGroup: nil, actionName: request.actionName, operations: kept)
        }
        return StoreBatchOutcome(matched: inserted, changes: changes, group: group, savedGroupID: savedGroupID)
    }
}

/// The existing records a batch insert's rows relate to, with the values their inverse
/// relationships take.
private struct InverseState {
    let entity: EntityDescription
    let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// The key ranges the request allocated (rows of the request, not in the store yet).
    var newKeys: [ClosedRange<Int64>] = []
    /// Records known to exist that need no change (a relationship without an inverse).
    private var existing: Set<ManagedObjectID> = []
    /// Records whose values change: before and after, in the order first touched.
    private var touched: OrderedDictionary<ManagedObjectID, (old: [PropertyValue], new: [PropertyValue])> = [:]
    /// For to-one inverses: the row that claimed a record's slot.
    private var claims: [ManagedObjectID: [Int: Int]] = [:]

    init(entity: EntityDescription, values: @escaping (ManagedObjectID) throws -> [PropertyValue]?) {
        self.entity = entity
        self.values = values
    }

    var changedRecords: Set<ManagedObjectID> {
        Set(touched.filter { $0.value.old != $0.value.new }.keys)
    }

    private func isNew(_ id: ManagedObjectID) -> Bool {
        id.entity.rootEntity === entity.rootEntity && newKeys.contains { $0.contains(id.primaryKey) }
    }

    /// Loads a record into `touched`; false when it is not in the store.
    private mutating func load(_ id: ManagedObjectID) throws -> Bool {
        if touched[id] != nil { return true }
        guard let row = try values(id) else { return false }
        touched[id] = (row, row)
        return true
    }

    /// Checks that the row's destinations exist and gives their inverses the new record.
    mutating func relate(_ id: ManagedObjectID, row: [PropertyValue], number: Int) throws {
        for relationship in entity.relationships where !relationship.isTransient {
            let destinations = row[relationship.slot].objectIDs
            guard !destinations.isEmpty else { continue }
            guard let inverseSlot = relationship.inverseSlot else {
                for destination in destinations where !existing.contains(destination) && touched[destination] == nil {
                    guard try values(destination) != nil else { throw missing(destination, relationship, number) }
                    existing.insert(destination)
                }
                continue
            }
            for destination in destinations {
                guard !isNew(destination), try load(destination) else { throw missing(destination, relationship, number) }
                try addInverse(of: id, to: destination, slot: inverseSlot, via: relationship, number: number)
            }
        }
    }

    private mutating func addInverse(of id: ManagedObjectID, to destination: ManagedObjectID, slot: Int,
                                     via relationship: RelationshipDescription, number: Int) throws {
        var row = touched[destination]!.new
        switch row[slot] {
        case .objects(var members):
            members.append(id)
            row[slot] = .objects(members)
        default:
            // A to-one inverse: the new record takes the destination from its owner.
            if let row = claims[destination]?[slot] {
                throw StrataError(
                    .validation,
                    "Row \(number) of the batch insert sets '\(entity.name).\(relationship.name)' to \(destination), which row \(row) already took: its inverse '\(destination.entity.name).\(destination.entity.slotNames[slot])' holds one record.",
                    problems: [StrataError.Problem(entityName: entity.name, object: "row \(number)", key: relationship.name,
                                                   reason: "\(destination) is already taken by row \(row)")],
                    context: ["entity": entity.name, "row": String(number), "key": relationship.name])
            }
            claims[destination, default: [:]][slot] = number
            if case .object(let owner) = row[slot], owner != id, try load(owner) {
                var ownerRow = touched[owner]!.new
                switch ownerRow[relationship.slot] {
                case .objects(var members):
                    members.remove(destination)
                    ownerRow[relationship.slot] = .objects(members)
                case .object(destination):
                    ownerRow[relationship.slot] = .null
                default:
                    break
                }
                touched[owner]!.new = ownerRow
            }
            row[slot] = .object(id)
        }
        touched[destination]!.new = row
    }

    private func missing(_ destination: ManagedObjectID, _ relationship: RelationshipDescription, _ number: Int) -> StrataError {
        let reason = "\(destination) is not a record in the store"
        return StrataError(
            .validation, "Row \(number) of the batch insert sets '\(entity.name).\(relationship.name)' to \(destination), which is not a record in the store.",
            problems: [StrataError.Problem(entityName: entity.name, object: "row \(number)", key: relationship.name, reason: reason)],
            context: ["entity": entity.name, "row": String(number), "key": relationship.name, "object": destination.description])
    }

    /// The operations taking the touched records from their old values to their new ones:
    /// a relate per changed unordered to-many, one update for the other slots.
    func operations() -> [ChangeOperation] {
        var operations: [ChangeOperation] = []
        for (id, values) in touched where values.old != values.new {
            var slotChanges: [SlotChange] = []
            var relates: [ChangeOperation] = []
            for slot in values.new.indices where values.old[slot] != values.new[slot] {
                if case .relationship(let index) = id.entity.slotKinds[slot], id.entity.relationships[index].isToMany,
                   !id.entity.relationships[index].isOrdered {
                    let old = Set(values.old[slot].objectIDs)
                    let new = values.new[slot].objectIDs
                    let newSet = Set(new)
                    relates.append(.relate(id, slot: slot, added: new.filter { !old.contains($0) },
                                           removed: values.old[slot].objectIDs.filter { !newSet.contains($0) }))
                } else {
                    slotChanges.append(SlotChange(slot: slot, old: values.old[slot], new: values.new[slot]))
                }
            }
            if !slotChanges.isEmpty { operations.append(.update(id, changes: SlotChanges(slotChanges))) }
            operations += relates
        }
        return operations
    }
}
