import Foundation
import OrderedCollections

/// Records by object ID with their persistent values: the in-memory store's rows, and the
/// copies a conflict check works on. Applying an operation is the one way rows change.
///
/// The rows are an ``ObjectIDTable`` (dense per-entity arrays beside a dictionary):
/// replaying a log looks a row up per operation. Each row carries the number of the batch
/// that last saved it for a rollback, so a batch saves a row once however often it changes
/// it, without a set of the rows it touched.
struct RowTable: Sendable {
    /// A record's values and the batch that last saved them in the journal.
    private struct StoredRow: Sendable {
        var values: [PropertyValue]
        var batch: UInt32
    }

    /// What a batch changed, to be put back if it fails.
    private enum Saved {
        case row(ManagedObjectID, StoredRow?)
        case deleted(ManagedObjectID, wasDeleted: Bool)
        case text(TextKey, TextSequence?)
    }

    private var rows = ObjectIDTable<StoredRow>()
    /// Records deleted by the operations applied.
    private(set) var deleted: Set<ManagedObjectID> = []
    /// The texts edited by splices, with their characters' identities (docs/TEXT.md); a
    /// text not here is its row's string as a first value.
    private(set) var texts: [TextKey: TextSequence] = [:]
    /// The current batch's number; rows stamped with it are already saved in `journal`.
    private var batch: UInt32 = 0
    private var isRecording = false
    private var journal: [Saved] = []
    /// The texts the batch in progress has journaled.
    private var textsSaved: Set<TextKey> = []
    #if STRATA_INVARIANTS
    private var sampler = InvariantSampler()
    #endif

    /// The number of records.
    var count: Int { rows.count }

    /// The record's values, or nil when there is no such record.
    func values(for id: ManagedObjectID) -> [PropertyValue]? { rows[id]?.values }

    /// The records of an entity (and its subentities), in ID order.
    func objectIDs(for entity: EntityDescription, includingSubentities: Bool) -> [ManagedObjectID] {
        rows.keys(of: entity, includingSubentities: includingSubentities).sorted()
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
        case .splice(let id, let slot, let edit): try splice(id, slot: slot, edit: edit)
        }
    }

    /// The text of `id` at `slot` with its characters' identities: as splices left it, or
    /// its string as a first value; nil when there is no such record.
    func textSequence(for id: ManagedObjectID, slot: Int) -> TextSequence? {
        if let sequence = texts[TextKey(id: id, slot: slot)] { return sequence }
        guard let values = values(for: id), slot < values.count else { return nil }
        if case .string(let value) = values[slot] { return TextSequence(base: value) }
        return TextSequence()
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
            rows.updateEach { $0.batch = 0 }
            batch = 1
        }
        journal.removeAll(keepingCapacity: true)
        textsSaved.removeAll(keepingCapacity: true)
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
            case .row(let id, let row):
                rows[id] = row
            case .deleted(let id, let wasDeleted):
                if wasDeleted { deleted.insert(id) } else { deleted.remove(id) }
            case .text(let key, let sequence):
                texts[key] = sequence
            }
        }
        #if STRATA_INVARIANTS
        let changes = journal.count
        defer { _checkInvariants(afterBatchOf: changes) }
        #endif
        journal.removeAll(keepingCapacity: true)
    }

    /// Saves a row about to change for a rollback, once a batch, and stamps it.
    @inline(__always)
    private static func save(_ id: ManagedObjectID, _ row: inout StoredRow, batch: UInt32, into journal: inout [Saved]) {
        guard row.batch != batch else { return }
        journal.append(.row(id, row))
        row.batch = batch
    }

    private mutating func setDeleted(_ id: ManagedObjectID, _ isDeleted: Bool) {
        guard deleted.contains(id) != isDeleted else { return }
        if isRecording { journal.append(.deleted(id, wasDeleted: !isDeleted)) }
        if isDeleted { deleted.insert(id) } else { deleted.remove(id) }
    }

    // MARK: Operations

    private mutating func insert(_ id: ManagedObjectID, _ values: [PropertyValue]) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        // An insert of a record that exists (with no delete between) means two writers were
        // given one key: refused, never a silent replacement of the first record.
        if rows[id] != nil { throw OverlayPatch.duplicate(id) }
        if isRecording { journal.append(.row(id, nil)) }
        rows[id] = StoredRow(values: Self.persistent(values, of: id.entity), batch: isRecording ? batch : 0)
        if !deleted.isEmpty { setDeleted(id, false) }
        // An inserted record's texts start from its values, on every replica alike; a record
        // inserted again (an undo of its delete) keeps its characters when they show them.
        if !texts.isEmpty, !id.entity.textSlots.isEmpty {
            for slot in id.entity.textSlots where !TextSequence.keeps(texts[TextKey(id: id, slot: slot)], forInsertOf: values[slot]) {
                setText(TextKey(id: id, slot: slot), nil)
            }
        }
    }

    /// A delete of a record that is not there is refused: a save never writes one (a
    /// delete on both sides is dropped, ``droppingDeletesOfMissingRecords(_:)``), so in a
    /// replayed log it means two writers reverted or deleted one record.
    private mutating func remove(_ id: ManagedObjectID) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        guard let row = rows.removeValue(forKey: id) else {
            throw StrataError(.corruptDocument, "An operation deletes \(id), which does not exist\(deleted.contains(id) ? " (it was deleted before)" : "").",
                              context: .init { $0.object = id.description })
        }
        if isRecording, row.batch != batch { journal.append(.row(id, row)) }
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
        try update(id, CollectionOfOne(SlotChange(slot: slot, old: .null, new: value)))
    }

    /// Applies an update's changes (see ``apply(_:model:)``).
    mutating func update(_ id: ManagedObjectID, _ changes: some Collection<SlotChange>) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        let (batch, isRecording) = (batch, isRecording)
        var saved: [Saved] = []
        let found: Void? = rows.withValue(id) { row in
            if isRecording { Self.save(id, &row, batch: batch, into: &saved) }
            for change in changes {
                let slot = change.slot
                guard slot >= 0, slot < row.values.count, !Self.isTransient(slot, of: id.entity) else { continue }
                row.values[slot] = change.new
            }
        }
        guard found != nil else { throw Self.missing(id) }
        journal.append(contentsOf: saved)
    }

    private mutating func relate(_ id: ManagedObjectID, slot: Int, added: [ManagedObjectID], removed: [ManagedObjectID]) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        let (batch, isRecording) = (batch, isRecording)
        var saved: [Saved] = []
        let related: Bool? = rows.withValue(id) { row in
            guard slot >= 0, slot < row.values.count, case .objects(var members) = row.values[slot] else { return false }
            if isRecording { Self.save(id, &row, batch: batch, into: &saved) }
            row.values[slot] = .null  // so that `members` is not shared
            members.relate(adding: added, removing: removed)
            row.values[slot] = .objects(members)
            return true
        }
        guard related == true else { throw Self.missing(id) }
        journal.append(contentsOf: saved)
    }

    /// Applies a text edit: to the text's characters and to the row's string, in place (a
    /// save of a thousand keystrokes splices one text a thousand times).
    private mutating func splice(_ id: ManagedObjectID, slot: Int, edit: TextEdit) throws {
        #if STRATA_INVARIANTS
        defer { _checkInvariants(touching: id) }
        #endif
        let key = TextKey(id: id, slot: slot)
        let old = texts.removeValue(forKey: key)
        // The batch's first change of the text keeps the old one, to be put back on failure.
        if isRecording, textsSaved.insert(key).inserted { journal.append(.text(key, old)) }
        var held = old
        defer { texts[key] = held }
        let (batch, isRecording) = (batch, isRecording)
        var saved: [Saved] = []
        let found: Void? = try rows.withValue(id) { row in
            guard slot >= 0, slot < row.values.count else { throw Self.missing(id) }
            if isRecording { Self.save(id, &row, batch: batch, into: &saved) }
            var sequence = held ?? TextSequence(base: row.values[slot].textValue)
            held = nil
            defer { held = sequence }
            try sequence.apply(edit, toString: &row.values[slot])
        }
        journal.append(contentsOf: saved)
        guard found != nil else { throw Self.missing(id) }
    }

    /// Gives a record the text a store holds with its identities (nil: its string is a
    /// first value), outside any batch.
    mutating func seedText(_ key: TextKey, _ sequence: TextSequence?) {
        texts[key] = sequence
    }

    private mutating func setText(_ key: TextKey, _ sequence: TextSequence?) {
        if isRecording, textsSaved.insert(key).inserted { journal.append(.text(key, texts[key])) }
        texts[key] = sequence
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
    /// Every broken invariant of the whole table: the row table's own
    /// (``ObjectIDTable``), no record both present and deleted, and outside a batch nothing
    /// kept for a rollback. O(rows).
    func _invariantViolations() -> [String] {
        var problems = rows._invariantViolations()
        for id in deleted where rows[id] != nil { problems.append("\(id) is both present and deleted") }
        if !isRecording, !journal.isEmpty { problems.append("\(journal.count) rollback entries outside a batch") }
        return problems
    }

    /// Stops the process when a change of `id`'s record broke an invariant. O(1).
    private func _checkInvariants(touching id: ManagedObjectID) {
        var problems = rows._violations(touching: id)
        if !deleted.isEmpty, deleted.contains(id), rows[id] != nil { problems.append("\(id) is both present and deleted") }
        checkInvariants(of: "RowTable", problems)
    }

    /// After a batch (applied or rolled back): now and then (amortized O(1) per change)
    /// checks the whole table.
    private mutating func _checkInvariants(afterBatchOf changes: Int) {
        if sampler.isFullCheckDue(after: changes, size: count + deleted.count) { checkInvariants(of: "RowTable", _invariantViolations()) }
    }

    /// Miscounts the rows, for the test that shows the check catches it.
    mutating func _corruptForTesting() { rows._corruptForTesting() }
}
#endif
