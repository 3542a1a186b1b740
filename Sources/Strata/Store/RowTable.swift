import Foundation
import OrderedCollections

/// Records by object ID with their persistent values: the in-memory store's rows.
/// Applying an operation is the one way rows change.
///
/// Permanent IDs with small positive keys live in dense arrays indexed by primary key, one
/// "lane" per entity and store: replaying a log looks a row up per operation, and indexing
/// an array is several times cheaper than hashing the ID. Other IDs (temporary ones, and
/// keys too far beyond the ones already there) use a dictionary. An ID is in at most one
/// of the two.
struct RowTable: Sendable {
    private struct Lane: Sendable {
        let entity: EntityDescription
        let storeTag: UInt32
        /// Whether each slot of the entity is transient (such changes are not stored).
        let isTransient: [Bool]
        var rows: ContiguousArray<[PropertyValue]?> = []
        /// The batch that last saved each row for a rollback (see `applyAtomically`).
        var stamps: ContiguousArray<UInt32> = []
        var count = 0
    }

    /// What a batch changed, to be put back if it fails.
    private enum Saved {
        case dense(lane: Int, key: Int, row: [PropertyValue]?)
        case sparse(ManagedObjectID, row: [PropertyValue]?)
        case deleted(ManagedObjectID, wasDeleted: Bool)
    }

    private var lanes: [Lane] = []
    private var sparse: [ManagedObjectID: [PropertyValue]] = [:]
    /// Records deleted by the operations applied.
    private(set) var deleted: Set<ManagedObjectID> = []
    /// The current batch's number; rows stamped with it are already saved in `journal`.
    private var batch: UInt32 = 0
    private var isRecording = false
    private var journal: [Saved] = []
    #if STRATA_INVARIANTS
    private var sampler = InvariantSampler()
    #endif

    /// The number of records.
    var count: Int { lanes.reduce(sparse.count) { $0 + $1.count } }

    /// The record's values, or nil when there is no such record.
    func values(for id: ManagedObjectID) -> [PropertyValue]? {
        if let (lane, key) = denseSlot(id), let row = lanes[lane].rows[key] { return row }
        return sparse.isEmpty ? nil : sparse[id]
    }

    /// The records of an entity (and its subentities), in ID order.
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) -> [ManagedObjectID] {
        func matches(_ candidate: EntityDescription) -> Bool {
            includingSubentities ? candidate.isKind(of: entity) : candidate === entity
        }
        var result = sparse.keys.filter { matches($0.entity) }
        for lane in lanes where matches(lane.entity) {
            result.reserveCapacity(result.count + lane.count)
            let scope = ObjectIDScope.of(lane.entity, storeTag: lane.storeTag, isTemporary: false)
            for (key, row) in lane.rows.enumerated() where row != nil {
                result.append(ManagedObjectID(scope: scope, primaryKey: Int64(key)))
            }
        }
        return result.sorted()
    }

    /// Applies one operation, dropping transient slots.
    /// - Throws: `.corruptDocument` when an update names a record that does not exist, or
    ///   an insert names one that exists.
    mutating func apply(_ operation: ChangeOperation, model: ManagedObjectModel) throws {
        switch operation {
        case .insert(let id, let values): try insert(id, values)
        case .delete(let id, _): try remove(id)
        case .update(let id, let changes): try update(id, changes)
        case .relate(let id, let slot, let added, let removed): try relate(id, slot: slot, added: added, removed: removed)
        }
    }

    /// Applies operations all or nothing: on an error every record touched is put back.
    ///
    /// - Complexity: O(operations), whatever the size of the table.
    mutating func applyAtomically(_ operations: [ChangeOperation], model: ManagedObjectModel) throws {
        beginBatch()
        do {
            for operation in operations { try apply(operation, model: model) }
        } catch {
            rollBack()
            throw error
        }
        endBatch()
    }

    /// Applies the operations of `groups`, in order, all or nothing (as
    /// ``applyAtomically(_:model:)``, without gathering them into one array first).
    mutating func applyAtomically(groups: [SegmentGroup], model: ManagedObjectModel) throws {
        beginBatch()
        do {
            for group in groups {
                for operation in group.operations { try apply(operation, model: model) }
            }
        } catch {
            rollBack()
            throw error
        }
        endBatch()
    }

    /// Runs `body` on the table all or nothing: when it throws, every record it touched is
    /// put back (the streaming replay applies a segment while decoding it this way).
    mutating func applyAtomically<Result>(_ body: (inout RowTable) throws -> Result) throws -> Result {
        beginBatch()
        do {
            let result = try body(&self)
            endBatch()
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    // MARK: Batches

    private mutating func beginBatch() {
        batch &+= 1
        if batch == 0 {
            // After 2^32 batches the stamps could be mistaken for the new batch's.
            for index in lanes.indices {
                lanes[index].stamps = ContiguousArray(repeating: 0, count: lanes[index].stamps.count)
            }
            batch = 1
        }
        journal.removeAll(keepingCapacity: true)
        isRecording = true
    }

    private mutating func endBatch() {
        #if STRATA_INVARIANTS
        let changes = journal.count
        defer { _checkInvariants(afterBatchOf: changes) }
        #endif
        isRecording = false
        // Holding the old rows would make the next batch's first change of each copy it.
        journal.removeAll(keepingCapacity: true)
    }

    /// Puts back every change of the batch, newest first.
    private mutating func rollBack() {
        isRecording = false
        for saved in journal.reversed() {
            switch saved {
            case .dense(let lane, let key, let row):
                setDense(lane, key, row)
            case .sparse(let id, let row):
                sparse[id] = row
            case .deleted(let id, let wasDeleted):
                if wasDeleted { deleted.insert(id) } else { deleted.remove(id) }
            }
        }
        #if STRATA_INVARIANTS
        let changes = journal.count
        defer { _checkInvariants(afterBatchOf: changes) }
        #endif
        journal.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private mutating func saveDense(_ lane: Int, _ key: Int) {
        guard isRecording, lanes[lane].stamps[key] != batch else { return }
        lanes[lane].stamps[key] = batch
        journal.append(.dense(lane: lane, key: key, row: lanes[lane].rows[key]))
    }

    private mutating func saveSparse(_ id: ManagedObjectID) {
        if isRecording { journal.append(.sparse(id, row: sparse[id])) }
    }

    private mutating func setDeleted(_ id: ManagedObjectID, _ isDeleted: Bool) {
        guard deleted.contains(id) != isDeleted else { return }
        if isRecording { journal.append(.deleted(id, wasDeleted: !isDeleted)) }
        if isDeleted { deleted.insert(id) } else { deleted.remove(id) }
    }

    // MARK: Locating rows

    @inline(__always)
    private func laneIndex(of id: ManagedObjectID) -> Int? {
        guard !id.isTemporaryID else { return nil }
        for index in lanes.indices where lanes[index].entity === id.entity && lanes[index].storeTag == id.storeTag {
            return index
        }
        return nil
    }

    /// Where the ID's row is (or would be) in a lane, when its key is inside the lane.
    @inline(__always)
    private func denseSlot(_ id: ManagedObjectID) -> (lane: Int, key: Int)? {
        guard let lane = laneIndex(of: id), id.primaryKey > 0, id.primaryKey < Int64(lanes[lane].rows.count) else {
            return nil
        }
        return (lane, Int(id.primaryKey))
    }

    /// The lane slot for a new row, creating the lane or growing it when the key is not far
    /// beyond the keys already there; nil when the row belongs in the dictionary.
    private mutating func denseSlotForInsert(_ id: ManagedObjectID) -> (lane: Int, key: Int)? {
        guard !id.isTemporaryID, id.primaryKey > 0, id.primaryKey < Int64(Int32.max) else { return nil }
        let key = Int(id.primaryKey)
        let lane: Int
        if let found = laneIndex(of: id) {
            lane = found
        } else {
            guard key < Self.minimumReach else { return nil }
            let entity = id.entity
            lanes.append(Lane(entity: entity, storeTag: id.storeTag,
                              isTransient: (0..<entity.slotCount).map { Self.isTransient($0, of: entity) }))
            lane = lanes.count - 1
        }
        let size = lanes[lane].rows.count
        guard key < max(size * 2, Self.minimumReach) else { return nil }
        if key >= size {
            let grown = max(key + 1, size * 2, 64)
            lanes[lane].rows.append(contentsOf: repeatElement(nil, count: grown - size))
            lanes[lane].stamps.append(contentsOf: repeatElement(0, count: grown - size))
        }
        return (lane, key)
    }

    /// Keys below this always fit a lane, so a new lane never starts huge.
    private static let minimumReach = 4096

    private mutating func setDense(_ lane: Int, _ key: Int, _ row: [PropertyValue]?) {
        let had = lanes[lane].rows[key] != nil
        lanes[lane].rows[key] = row
        lanes[lane].count += (row != nil ? 1 : 0) - (had ? 1 : 0)
    }

    // MARK: Operations

    private mutating func insert(_ id: ManagedObjectID, _ values: [PropertyValue]) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        // An insert of a record that exists (with no delete between) means two writers were
        // given one key: refused, never a silent replacement of the first record.
        if self.values(for: id) != nil { throw OverlayPatch.duplicate(id) }
        let row = Self.persistent(values, of: id.entity)
        if let (lane, key) = denseSlotForInsert(id) {
            saveDense(lane, key)
            setDense(lane, key, row)
            if !sparse.isEmpty, sparse[id] != nil {
                saveSparse(id)
                sparse[id] = nil
            }
        } else {
            saveSparse(id)
            sparse[id] = row
        }
        if !deleted.isEmpty { setDeleted(id, false) }
    }

    /// A delete of a record that is not there is refused: a save never writes one (a
    /// delete on both sides is dropped, ``droppingDeletesOfMissingRecords(_:)``), so in a
    /// replayed log it means two writers reverted or deleted one record.
    private mutating func remove(_ id: ManagedObjectID) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        if let (lane, key) = denseSlot(id), lanes[lane].rows[key] != nil {
            saveDense(lane, key)
            setDense(lane, key, nil)
        } else if !sparse.isEmpty, sparse[id] != nil {
            saveSparse(id)
            sparse[id] = nil
        } else {
            throw StrataError(.corruptDocument, "An operation deletes \(id), which does not exist\(deleted.contains(id) ? " (it was deleted before)" : "").",
                              context: .init { $0.object = id.description })
        }
        setDeleted(id, true)
    }

    /// `groups` without the deletes of records that are not there when they apply: another
    /// writer deleted the record after the saving context read it (deleted on both sides,
    /// nothing to write). Groups without such a delete are returned as they are.
    func droppingDeletesOfMissingRecords(_ groups: [SegmentGroup]) -> [SegmentGroup] {
        var present: [ManagedObjectID: Bool] = [:]
        return groups.map { group in
            var kept: [ChangeOperation]?
            for (position, operation) in group.operations.enumerated() {
                switch operation {
                case .insert(let id, _):
                    present[id] = true
                case .delete(let id, _):
                    let exists = present[id] ?? (values(for: id) != nil)
                    present[id] = false
                    if !exists {
                        if kept == nil { kept = Array(group.operations[..<position]) }
                        continue
                    }
                default:
                    break
                }
                kept?.append(operation)
            }
            guard let kept else { return group }
            var copy = group
            copy.operations = kept
            return copy
        }
    }

    /// Applies an update of one slot (the streaming replay's common case, without an array
    /// of changes).
    mutating func update(_ id: ManagedObjectID, slot: Int, to value: PropertyValue) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        if let (lane, key) = denseSlot(id), lanes[lane].rows[key] != nil {
            saveDense(lane, key)
            guard slot >= 0, slot < lanes[lane].isTransient.count, !lanes[lane].isTransient[slot] else { return }
            var row = lanes[lane].rows[key].take()!
            if slot < row.count { row[slot] = value }
            lanes[lane].rows[key] = row
            return
        }
        try update(id, [SlotChange(slot: slot, old: .null, new: value)])
    }

    /// Applies an update's changes (see ``apply(_:model:)``).
    mutating func update(_ id: ManagedObjectID, _ changes: some Collection<SlotChange>) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        if let (lane, key) = denseSlot(id), lanes[lane].rows[key] != nil {
            saveDense(lane, key)
            // Taken out so that each change checks one buffer for sharing, not three.
            var row = lanes[lane].rows[key].take()!
            for change in changes {
                let slot = change.slot
                guard slot >= 0, slot < row.count, !lanes[lane].isTransient[slot] else { continue }
                row[slot] = change.new
            }
            lanes[lane].rows[key] = row
            return
        }
        guard !sparse.isEmpty, sparse[id] != nil else { throw Self.missing(id) }
        saveSparse(id)
        guard var values = sparse.removeValue(forKey: id) else { throw Self.missing(id) }
        for change in changes where change.slot >= 0 && change.slot < values.count && !Self.isTransient(change.slot, of: id.entity) {
            values[change.slot] = change.new
        }
        sparse[id] = values
    }

    private mutating func relate(_ id: ManagedObjectID, slot: Int, added: [ManagedObjectID], removed: [ManagedObjectID]) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        /// Changes the members in place; the slot is known to hold `.objects`.
        func change(_ values: inout [PropertyValue]) {
            guard case .objects(var members) = values[slot] else { return }
            values[slot] = .null  // so that `members` is not shared
            members.relate(adding: added, removing: removed)
            values[slot] = .objects(members)
        }
        if let (lane, key) = denseSlot(id), var values = lanes[lane].rows[key] {
            guard slot >= 0, slot < values.count, case .objects = values[slot] else { throw Self.missing(id) }
            saveDense(lane, key)
            lanes[lane].rows[key] = nil  // so that `values` is not shared
            change(&values)
            lanes[lane].rows[key] = values
            return
        }
        guard !sparse.isEmpty, var values = sparse[id] else { throw Self.missing(id) }
        guard slot >= 0, slot < values.count, case .objects = values[slot] else { throw Self.missing(id) }
        saveSparse(id)
        sparse[id] = nil
        change(&values)
        sparse[id] = values
    }

    private static func missing(_ id: ManagedObjectID) -> StrataError {
        StrataError(.corruptDocument, "An operation changes \(id), which does not exist.", context: .init { $0.object = id.description })
    }

    static func isTransient(_ slot: Int, of entity: EntityDescription) -> Bool {
        switch entity.slotKinds[slot] {
        case .attribute(let index): return entity.attributes[index].isTransient
        case .relationship(let index): return entity.relationships[index].isTransient
        }
    }

    /// The values with transient slots reset (attributes to null, to-manys to empty).
    static func persistent(_ values: [PropertyValue], of entity: EntityDescription) -> [PropertyValue] {
        var result = values
        for slot in result.indices where isTransient(slot, of: entity) {
            let stored: PropertyValue
            if case .relationship(let index) = entity.slotKinds[slot], entity.relationships[index].isToMany {
                stored = .objects([])
            } else {
                stored = .null
            }
            // Written only when it differs: a row whose transients are unset (most rows)
            // stays the buffer its object and the log share, instead of being copied.
            if result[slot] != stored { result[slot] = stored }
        }
        return result
    }
}

#if STRATA_INVARIANTS
extension RowTable {
    /// Every broken invariant of the whole table: each lane has one stamp per row and
    /// counts its rows, no two lanes share an entity and store, a record is in a lane or
    /// the dictionary (not both) and never both present and deleted, and outside a batch
    /// nothing is kept for a rollback. O(rows).
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        var seen = Set<String>()
        for lane in lanes {
            problems += Self.violations(of: lane)
            let held = lane.rows.lazy.filter { $0 != nil }.count
            if held != lane.count { problems.append("lane \(lane.entity.name)/\(lane.storeTag) counts \(lane.count) rows but holds \(held)") }
            if !seen.insert("\(ObjectIdentifier(lane.entity))/\(lane.storeTag)").inserted {
                problems.append("two lanes for \(lane.entity.name)/\(lane.storeTag)")
            }
        }
        for id in sparse.keys { problems += violations(touching: id) }
        for id in deleted where values(for: id) != nil { problems.append("\(id) is both present and deleted") }
        if !isRecording, !journal.isEmpty { problems.append("\(journal.count) rollback entries outside a batch") }
        return problems
    }

    /// The invariants a change of `id`'s record could break. O(1).
    private func violations(touching id: ManagedObjectID) -> [String] {
        var problems: [String] = []
        if let lane = laneIndex(of: id) { problems += Self.violations(of: lanes[lane]) }
        if let (lane, key) = denseSlot(id), lanes[lane].rows[key] != nil, !sparse.isEmpty, sparse[id] != nil {
            problems.append("\(id) is both in a lane and in the dictionary")
        }
        if !deleted.isEmpty, deleted.contains(id), values(for: id) != nil { problems.append("\(id) is both present and deleted") }
        return problems
    }

    private static func violations(of lane: Lane) -> [String] {
        guard lane.stamps.count != lane.rows.count || lane.count < 0 || lane.count > lane.rows.count else { return [] }
        return ["lane \(lane.entity.name)/\(lane.storeTag) has \(lane.rows.count) rows, \(lane.stamps.count) stamps, count \(lane.count)"]
    }

    /// Stops the process when a change of `id`'s record broke an invariant.
    private func _checkInvariants(touching id: ManagedObjectID) {
        checkInvariants(of: "RowTable", violations(touching: id))
    }

    /// After a batch (applied or rolled back): now and then (amortized O(1) per change)
    /// checks the whole table.
    private mutating func _checkInvariants(afterBatchOf changes: Int) {
        if sampler.isFullCheckDue(after: changes, size: count + deleted.count) { checkInvariants(of: "RowTable", _invariantViolations()) }
    }

    /// Miscounts the rows of the first lane, for the test that shows the check catches it.
    mutating func _corruptForTesting() {
        if !lanes.isEmpty { lanes[0].count += 1 }
    }
}
#endif
