import Foundation
import OrderedCollections

extension DocumentStore {
    /// The token of the last segment saved (by any process): pass it to a later
    /// ``history(_:)`` to read only what was saved after now. 0 before the first save.
    public var currentHistoryToken: PersistentHistoryToken {
        get throws { try withOpenState { PersistentHistoryToken(sequence: $0.lastSequence) } }
    }

    /// The token of the oldest segment the log still holds, or nil when it holds none: a
    /// request after an earlier token misses the transactions before this one, which
    /// ``deleteHistory(before:)`` or the retention policy dropped.
    public var oldestHistoryToken: PersistentHistoryToken? {
        get throws {
            try withOpenState { try LogTables.sequences($0.connection).first.map(PersistentHistoryToken.init(sequence:)) }
        }
    }

    /// The saved transactions the request selects, oldest first, with their changes and
    /// old and new values, read from the retained log (segments other processes saved
    /// included, since the log is read from the file).
    ///
    /// ```swift
    /// let since = try document.history(PersistentHistoryRequest(after: lastSeen, authors: ["Importer"]))
    /// for transaction in since { print(transaction.token, transaction.author ?? "-", transaction.changes.count) }
    /// ```
    /// - Throws: `.invalidArgument` naming an entity name the model lacks;
    ///   `.corruptSegment` naming a malformed segment.
    /// - Complexity: O(bytes of the segments after the request's token).
    public func history(_ request: PersistentHistoryRequest = PersistentHistoryRequest()) throws -> [PersistentHistoryTransaction] {
        try history(request, through: UInt64(Int64.max))
    }

    /// The transactions ``history(_:)`` selects among the segments up to `last`: one save,
    /// or one window of a long log, decoded without reading the segments after it (the
    /// inspector pages a timeline this way; docs/INSPECTOR.md).
    /// - Complexity: O(bytes of the segments after the request's token through `last`).
    package func history(_ request: PersistentHistoryRequest, through last: UInt64) throws -> [PersistentHistoryTransaction] {
        let entities = try request.entityNames.map { names in
            try names.map { name in
                guard let entity = model.entitiesByName[name] else {
                    throw StrataError(.invalidArgument, "The history request names the entity \(name), which the model of \(url.path) lacks.",
                                      context: .init { $0.path = url.path; $0.entity = name })
                }
                return entity
            }
        }
        let first = (request.after?.sequence ?? 0).addingReportingOverflow(1)
        let last = min(last, UInt64(Int64.max))
        guard !first.overflow, first.partialValue <= last else { return [] }
        var transactions: [PersistentHistoryTransaction] = []
        let versions = try segmentModelVersions()
        for record in try segmentRecords(in: first.partialValue...last) {
            // The log row's time is not rounded, the segment's is (to the millisecond): skip
            // by the row only what is surely too old, then compare the time reported.
            if let since = request.since, record.timestamp < since.addingTimeInterval(-0.001) { continue }
            // A segment saved before a migration decodes in its own model version; its changes
            // are then named in the current model (docs/MIGRATION.md, "History").
            let segmentModel = versions.model(forSegment: record.sequence)
            let segment = try SegmentCodec.decodeCompressed(record.body, model: segmentModel, storeTag: tag, sequenceHint: record.sequence,
                                                            maxContentSize: configuration.maxSegmentSize)
            if let since = request.since, segment.timestamp < since { continue }
            if let authors = request.authors, segment.author.map(authors.contains) != true { continue }
            if let names = request.contextNames, segment.contextName.map(names.contains) != true { continue }
            var changes = PersistentHistoryFolder.changes(of: segment, model: segmentModel)
            if segmentModel !== model { changes = changes.map { PersistentHistoryFolder.inCurrentModel($0, versions: versions, storeTag: tag) } }
            if let entities {
                changes.removeAll { change in !entities.contains { change.objectID.entity.isKind(of: $0) } }
                if changes.isEmpty { continue }
            }
            transactions.append(PersistentHistoryTransaction(
                token: PersistentHistoryToken(sequence: segment.sequence), timestamp: segment.timestamp,
                author: segment.author, contextName: segment.contextName, groups: segment.groups.map(\.info), changes: changes))
        }
        return transactions
    }

    /// Deletes the history before `token` (Core Data's `deleteHistory(before:)`): the
    /// segments with a smaller sequence leave the log, the way compaction's retention
    /// policy drops segments (docs/SEMANTICS.md, "Persistent history"). The snapshot
    /// tables hold their effect, so no record changes; what goes is the ability to read
    /// those transactions, to undo their groups after reopening
    /// (``ManagedObjectContext/restoreUndoHistory()`` finds only later ones) and to replay
    /// the log from the start (`strata-log replay` starts at the snapshot). When the
    /// snapshot does not yet hold every segment before `token`, the store compacts first
    /// (with its configured retention, which may drop more). Returns how many segments
    /// were deleted.
    ///
    /// - Throws: `.invalidArgument` for a read-only store; `.busy` while another process
    ///   writes for longer than the busy timeout.
    @discardableResult
    public func deleteHistory(before token: PersistentHistoryToken) throws -> Int {
        try requireWritable()
        guard token.sequence > 1 else { return 0 }
        let through = min(token.sequence - 1, UInt64(Int64.max))
        return try writing {
            try withOpenState { state in
                var compactedThrough = state.meta.compactedThrough
                if compactedThrough < through {
                    compactedThrough = try state.compact(configuration: configuration).compactedThrough
                }
                return try state.dropHistory(through: min(through, compactedThrough))
            }
        }
    }
}

extension DocumentState {
    /// Deletes the segments with sequence ≤ `sequence`, which the snapshot holds, as
    /// ``applyRetention(_:)`` does.
    mutating func dropHistory(through sequence: UInt64) throws -> Int {
        guard sequence > 0 else { return 0 }
        return try connection.transaction(.immediate) {
            // Another process's groups first, so the counter written below is the largest.
            try catchUp()
            // As in applyRetention: the counter keeps group ids above those of the rows deleted.
            try DocumentFile.writeMeta(connection, key: "groupCounter", .integer(Int64(largestGroupID)))
            return try LogTables.delete(connection, through: Int64(sequence))
        }
    }
}

/// Folds a segment's operations into one ``PersistentHistoryChange`` per object.
enum PersistentHistoryFolder {
    static func changes(of segment: Segment, model: ManagedObjectModel) -> [PersistentHistoryChange] {
        var order: [ManagedObjectID] = []
        var folded: [ManagedObjectID: Fold] = [:]
        for group in segment.groups {
            for operation in group.operations {
                let id = operation.objectID
                if folded[id] == nil {
                    order.append(id)
                    folded[id] = Fold()
                }
                folded[id]!.apply(operation, model: model)
            }
        }
        return order.map { id in
            let fold = folded[id]!
            let properties = fold.slots.keys.sorted().map { slot in
                let change = fold.slots[slot]!
                return PersistentHistoryPropertyChange(key: name(of: slot, in: id.entity), old: change.old, new: change.new,
                                                       added: change.added, removed: change.removed)
            }
            return PersistentHistoryChange(objectID: id, kind: fold.kind, properties: properties)
        }
    }

    /// A change an older segment recorded, named in the current model: its records in
    /// the entities they became, each carried property by its current name (a removed
    /// entity's records and a dropped property's name stay as they were written).
    static func inCurrentModel(_ change: PersistentHistoryChange, versions: SegmentModelVersions,
                               storeTag: UInt32) -> PersistentHistoryChange {
        func id(_ id: ManagedObjectID) -> ManagedObjectID { versions.currentID(id, storeTag: storeTag) }
        func value(_ value: PropertyValue?) -> PropertyValue? {
            switch value {
            case .object(let member)?: .object(id(member))
            case .objects(let members)?: .objects(OrderedSet(members.map(id)))
            default: value
            }
        }
        let entity = change.objectID.entity
        let properties = change.properties.map { property in
            var mapped = property
            if let slot = entity.slotIndex(of: property.key), let name = versions.currentSlotName(slot, of: entity) { mapped.key = name }
            mapped.old = value(property.old)
            mapped.new = value(property.new)
            mapped.added = property.added.map(id)
            mapped.removed = property.removed.map(id)
            return mapped
        }
        return PersistentHistoryChange(objectID: id(change.objectID), kind: change.kind, properties: properties)
    }

    private static func name(of slot: Int, in entity: EntityDescription) -> String {
        slot >= 0 && slot < entity.slotNames.count ? entity.slotNames[slot] : "slot \(slot)"
    }

    /// The object's change so far in the save.
    private struct Fold {
        var kind = PersistentHistoryChangeKind.update
        var slots: [Int: PersistentHistoryPropertyChange] = [:]

        mutating func apply(_ operation: ChangeOperation, model: ManagedObjectModel) {
            switch operation {
            case .insert(let id, let values):
                kind = .insert
                for (slot, value) in values.enumerated() where isPersistent(slot, id.entity, model) {
                    set(slot, old: .null, new: value)
                }
            case .delete(let id, let values):
                kind = .delete
                for (slot, value) in values.enumerated() where isPersistent(slot, id.entity, model) {
                    set(slot, old: value, new: .null)
                }
            case .update(_, let changes):
                for change in changes { set(change.slot, old: change.old, new: change.new) }
            case .relate(_, let slot, let added, let removed):
                var change = slots[slot] ?? PersistentHistoryPropertyChange(key: "", old: nil, new: nil)
                if change.old == nil {
                    // Membership: an object added then removed in one save cancels out.
                    for id in added { if let index = change.removed.firstIndex(of: id) { change.removed.remove(at: index) } else { change.added.append(id) } }
                    for id in removed { if let index = change.added.firstIndex(of: id) { change.added.remove(at: index) } else { change.removed.append(id) } }
                } else if case .objects(var members)? = change.new {
                    // The relationship's whole value is known (inserted in this save): keep it whole.
                    for id in removed { members.remove(id) }
                    for id in added { members.append(id) }
                    change.new = .objects(members)
                }
                slots[slot] = change
            case .splice(_, let slot, _):
                // A text's change names its key; the log holds its splices, not its values.
                slots[slot] = PersistentHistoryPropertyChange(key: "", old: nil, new: nil)
            }
        }

        /// Keeps the first old value and the last new one.
        private mutating func set(_ slot: Int, old: PropertyValue, new: PropertyValue) {
            if var change = slots[slot], change.old != nil {
                change.new = new
                slots[slot] = change
            } else {
                slots[slot] = PersistentHistoryPropertyChange(key: "", old: old, new: new)
            }
        }

        private func isPersistent(_ slot: Int, _ entity: EntityDescription, _ model: ManagedObjectModel) -> Bool {
            SegmentFormat.slot(slot, of: entity, in: model).map { !$0.isTransient } ?? false
        }
    }
}
