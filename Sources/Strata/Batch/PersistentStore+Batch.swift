import Foundation

/// A batch request as a store runs it: which records (a store fetch), what to do to them,
/// and the group the operations are saved as.
public struct StoreBatchRequest: Sendable {
    /// What happens to the matching records.
    public enum Action: Sendable, Hashable {
        /// Set these attribute slots to the values of expressions over each record's values
        /// before the update (constants already coerced to the attribute types; computed
        /// values are coerced and validated per record, `now()` is ``StoreBatchRequest/timestamp``).
        case update([Int: FetchExpression])
        /// Delete the records, applying the model's delete rules.
        case delete
        /// Insert the rows the source gives (the fetch plays no part).
        case insert(StoreBatchInsert)
    }

    /// The records: entity, predicate, order and window.
    public var fetch: StoreFetchRequest
    /// What to do to them.
    public var action: Action
    /// The id of the group the operations are saved as (temporary: the store gives the
    /// permanent one).
    public var groupID: UInt64
    /// The kind of that group: `ChangeGroupKind.batch` (the default), or
    /// `ChangeGroupKind.user` for a request that registers undo.
    public var kind: ChangeGroupKind
    /// The group's action name ("Batch Update Employee").
    public var actionName: String
    /// When the request runs.
    public var timestamp: Date

    /// Creates a store batch request.
    public init(fetch: StoreFetchRequest, action: Action, groupID: UInt64, actionName: String, timestamp: Date = Date(),
                kind: ChangeGroupKind = .batch) {
        self.fetch = fetch
        self.action = action
        self.groupID = groupID
        self.kind = kind
        self.actionName = actionName
        self.timestamp = timestamp
    }
}

/// What a store did for a ``StoreBatchRequest``.
public struct StoreBatchOutcome: Sendable {
    /// The records the fetch matched, in its order.
    public var matched: [ManagedObjectID]
    /// The records changed: updated (including nullified inverses) and deleted (including
    /// cascades).
    public var changes: SaveChanges
    /// The group saved; nil when nothing changed (no segment is written then). For an
    /// insert, its operations are kept only when the group is undoable (kind
    /// `ChangeGroupKind.user`): a large insert does not hold them all otherwise.
    public var group: SegmentGroup?
    /// The permanent id the store saved the group under, when it reports it.
    public var savedGroupID: UInt64?
    /// Whether the group's operations were left out because the store's log holds them
    /// (an undoable batch insert into a document): an undo reads them back from there.
    var readsGroupFromLog = false
    /// How many records a batch insert inserted, which ``matched`` lists only when the
    /// result asks for the IDs (``StoreBatchInsert/listing``); nil: `matched.count`.
    var count: Int?

    /// Creates an outcome.
    public init(matched: [ManagedObjectID], changes: SaveChanges, group: SegmentGroup?, savedGroupID: UInt64? = nil) {
        self.matched = matched
        self.changes = changes
        self.group = group
        self.savedGroupID = savedGroupID
    }
}

/// A store that runs batch requests itself, atomically under its own lock: it finds the
/// records with its fetch path, builds the operations from its rows and saves them as one
/// group. ``InMemoryStore`` and ``DocumentStore`` conform; for other stores the context
/// runs the same steps through the ``PersistentStore`` requirements.
public protocol BatchExecutingStore: PersistentStore {
    /// Runs the request and saves its operations as one `ChangeGroupKind.batch` group.
    /// - Throws: `.validation` when a deny rule refuses a delete; fetch and save errors.
    ///   Nothing is saved when it throws.
    func executeBatch(_ request: StoreBatchRequest) throws -> StoreBatchOutcome
}

extension PersistentStore {
    /// Runs a batch request through the plain store requirements: `fetchObjectIDs`,
    /// `values(for:)` and `save` (not atomic against other writers of the store; the
    /// context holds the coordinator's save lock).
    func executeBatchThroughRequirements(_ request: StoreBatchRequest) throws -> StoreBatchOutcome {
        if case .insert(let rows) = request.action { return try executeBatchInsert(request, rows: rows, chunkSize: .max) }
        let matched = try fetchObjectIDs(request.fetch)
        let outcome = try StoreBatchPlanner(values: { try self.values(for: $0) }).plan(request, matched: matched)
        guard let group = outcome.group else { return outcome }
        let saved = try save(StoreSaveRequest(groups: [group], timestamp: request.timestamp))
        var result = outcome
        result.savedGroupID = saved.groupIDs[group.id] ?? group.id
        return result
    }

    /// Writes a batch insert with ``BatchInsertWriter`` through `values` (default
    /// `values(for:)`) and `save`, `chunkSize` rows per segment, each chunk's keys reserved
    /// with ``PersistentStore/allocatePrimaryKeys(for:count:)``.
    func executeBatchInsert(_ request: StoreBatchRequest, rows: StoreBatchInsert, chunkSize: Int, readsGroupFromLog: Bool = false,
                            values: ((ManagedObjectID) throws -> [PropertyValue]?)? = nil,
                            save: ((SegmentGroup) throws -> StoreSaveResult)? = nil) throws -> StoreBatchOutcome {
        var writer = BatchInsertWriter(
            storeTag: tag, chunkSize: chunkSize,
            values: values ?? { try self.values(for: $0) },
            allocate: { try self.allocatePrimaryKeys(for: $0, count: $1) },
            save: save ?? { group in try self.save(StoreSaveRequest(groups: [group], timestamp: request.timestamp)) },
            fetch: { try self.fetchObjectIDs($0) })
        writer.readsGroupFromLog = readsGroupFromLog
        return try writer.run(request, rows: rows)
    }
}

/// Turns the records a batch request matched into the operations of its group, from the
/// store's rows: updates with old and new values, deletes with full values and the
/// operations of the delete rules.
struct StoreBatchPlanner {
    /// A record's persistent values, or nil when it does not exist.
    let values: (ManagedObjectID) throws -> [PropertyValue]?

    /// The outcome (its group not yet saved).
    func plan(_ request: StoreBatchRequest, matched: [ManagedObjectID]) throws -> StoreBatchOutcome {
        switch request.action {
        case .update(let assignments):
            return try planUpdate(request, matched: matched, assignments: assignments)
        case .delete:
            return try planDelete(request, matched: matched)
        case .insert:
            throw StrataError(.invalidArgument, "A batch insert is written by BatchInsertWriter, not planned from matched records.")
        }
    }

    /// The group of `operations` and the derived values they change (``BatchDerivations``),
    /// whose records join `changes`.
    private func group(_ request: StoreBatchRequest, _ operations: [ChangeOperation], changes: inout SaveChanges) throws -> SegmentGroup? {
        let (operations, derived) = try BatchDerivations.complete(operations, model: request.fetch.entity.model,
                                                                  now: request.timestamp, values: values)
        changes.updated.formUnion(derived)
        return operations.isEmpty ? nil : SegmentGroup(
            id: request.groupID, kind: request.kind, revertsGroup: nil, actionName: request.actionName, operations: operations)
    }

    // MARK: Update

    private func planUpdate(_ request: StoreBatchRequest, matched: [ManagedObjectID],
                            assignments: [Int: FetchExpression]) throws -> StoreBatchOutcome {
        let ordered = assignments.keys.sorted().map { (slot: $0, expression: assignments[$0]!.replacingNow(with: request.timestamp)) }
        var operations: [ChangeOperation] = []
        var changes = SaveChanges()
        for id in matched {
            guard let row = try values(id) else { continue }
            let applicable = ordered.filter { $0.slot < row.count }
            // Every new value comes from the old row, before any slot of it changes.
            let newValues = try BatchUpdateValues.values(applicable, for: id, row: row, rowSource: values)
            var slotChanges: [SlotChange] = []
            for (assignment, new) in zip(applicable, newValues) where row[assignment.slot] != new {
                slotChanges.append(SlotChange(slot: assignment.slot, old: row[assignment.slot], new: new))
            }
            guard !slotChanges.isEmpty else { continue }
            operations.append(.update(id, changes: SlotChanges(slotChanges)))
            changes.updated.insert(id)
        }
        let group = try self.group(request, operations, changes: &changes)
        return StoreBatchOutcome(matched: matched, changes: changes, group: group)
    }

    // MARK: Delete

    private func planDelete(_ request: StoreBatchRequest, matched: [ManagedObjectID]) throws -> StoreBatchOutcome {
        // 1. The records to delete: the matches and, through cascade rules, their destinations.
        var doomed: [ManagedObjectID] = []
        var isDoomed: Set<ManagedObjectID> = []
        var rows: [ManagedObjectID: [PropertyValue]] = [:]
        for id in matched where isDoomed.insert(id).inserted { doomed.append(id) }
        var next = 0
        while next < doomed.count {
            let id = doomed[next]
            next += 1
            guard let row = try values(id) else { continue }
            rows[id] = row
            for relationship in id.entity.relationships where relationship.deleteRule == .cascade && !relationship.isTransient {
                for destination in row[relationship.slot].objectIDs where isDoomed.insert(destination).inserted {
                    doomed.append(destination)
                }
            }
        }
        doomed.removeAll { rows[$0] == nil }

        // 2. Deny rules: a surviving destination refuses the request.
        var problems: [StrataError.Problem] = []
        for id in doomed {
            guard let row = rows[id] else { continue }
            for relationship in id.entity.relationships where relationship.deleteRule == .deny && !relationship.isTransient {
                var live: [ManagedObjectID] = []
                for destination in row[relationship.slot].objectIDs where !isDoomed.contains(destination) {
                    if try values(destination) != nil { live.append(destination) }
                }
                guard !live.isEmpty else { continue }
                problems.append(StrataError.Problem(
                    entityName: id.entity.name, object: id.description, key: relationship.name,
                    reason: "the delete is denied: '\(relationship.name)' still has \(live.count) destination\(live.count == 1 ? "" : "s") (\(live.prefix(3).map(\.description).joined(separator: ", ")))"))
            }
        }
        if !problems.isEmpty {
            let first = problems[0]
            throw StrataError(
                .validation, "The batch delete is denied: \(first.entityName) \(first.object ?? "") still has destinations in '\(first.key ?? "")'.",
                problems: problems, context: .init { $0.entity = first.entityName; $0.key = first.key; $0.object = first.object })
        }

        // 3. Nullify rules: surviving destinations lose the deleted records from their inverse.
        var removals: [ManagedObjectID: [Int: Set<ManagedObjectID>]] = [:]
        for id in doomed {
            guard let row = rows[id] else { continue }
            for relationship in id.entity.relationships where relationship.deleteRule == .nullify && !relationship.isTransient {
                guard let inverseSlot = relationship.inverseSlot else { continue }
                for destination in row[relationship.slot].objectIDs where !isDoomed.contains(destination) {
                    removals[destination, default: [:]][inverseSlot, default: []].insert(id)
                }
            }
        }
        var operations: [ChangeOperation] = []
        var changes = SaveChanges()
        for destination in removals.keys.sorted() {
            guard let bySlot = removals[destination], let row = try values(destination) else { continue }
            let before = operations.count
            appendRemovals(bySlot, from: destination, row: row, to: &operations)
            if operations.count > before { changes.updated.insert(destination) }
        }
        for id in doomed {
            guard let row = rows[id] else { continue }
            operations.append(.delete(id, values: row))
            changes.deleted.insert(id)
        }
        let matchedLive = matched.filter { rows[$0] != nil }
        let group = try self.group(request, operations, changes: &changes)
        return StoreBatchOutcome(matched: matchedLive, changes: changes, group: group)
    }

    /// The operations removing `members` from `owner`'s relationship slots: one update for
    /// to-ones and ordered to-manys, a relate per unordered to-many.
    private func appendRemovals(_ bySlot: [Int: Set<ManagedObjectID>], from owner: ManagedObjectID, row: [PropertyValue],
                                to operations: inout [ChangeOperation]) {
        var slotChanges: [SlotChange] = []
        var relates: [ChangeOperation] = []
        for slot in bySlot.keys.sorted() where slot < row.count {
            guard let members = bySlot[slot], case .relationship(let index) = owner.entity.slotKinds[slot] else { continue }
            let relationship = owner.entity.relationships[index]
            switch row[slot] {
            case .object(let current) where members.contains(current):
                slotChanges.append(SlotChange(slot: slot, old: row[slot], new: .null))
            case .objects(let current):
                let removed = current.filter { members.contains($0) }
                guard !removed.isEmpty else { continue }
                if relationship.isOrdered {
                    slotChanges.append(SlotChange(slot: slot, old: row[slot], new: .objects(current.filter { !members.contains($0) })))
                } else {
                    relates.append(.relate(owner, slot: slot, added: [], removed: Array(removed)))
                }
            default:
                continue
            }
        }
        if !slotChanges.isEmpty { operations.append(.update(owner, changes: SlotChanges(slotChanges))) }
        operations.append(contentsOf: relates)
    }
}
