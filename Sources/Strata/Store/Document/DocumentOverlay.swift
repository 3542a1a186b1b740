import Foundation

/// The net effect of the uncompacted segments: full persistent rows of every record they
/// inserted or changed, and the records they deleted. Reads consult it before the
/// snapshot; compaction writes it into the snapshot and empties it.
struct DocumentOverlay {
    private(set) var rows = RecordRows()
    private(set) var deleted: Set<ManagedObjectID> = []
    /// The texts splices changed, with their characters' identities (docs/TEXT.md);
    /// compaction writes them into the snapshot's `strata_text` table.
    private(set) var texts: [TextKey: TextSequence] = [:]
    #if STRATA_INVARIANTS
    /// When to check the whole overlay (see `_checkInvariants(after:)`).
    var invariantSampler = InvariantSampler()
    #endif

    var isEmpty: Bool { rows.isEmpty && deleted.isEmpty }

    enum Lookup {
        case row([PropertyValue])
        case deleted
        case unknown
    }

    func lookup(_ id: ManagedObjectID) -> Lookup {
        if let row = rows[id] { return .row(row) }
        return deleted.contains(id) ? .deleted : .unknown
    }

    mutating func merge(_ patch: OverlayPatch) {
        #if STRATA_INVARIANTS
        precondition(patch.staleStrings.isEmpty, "a patch merged with texts' strings not written (OverlayPatch.writeTextStrings)")
        defer { _checkInvariants(after: patch) }
        #endif
        // The first save after open or compaction (a bulk import) takes the patch's tables
        // as they are instead of hashing every record into empty ones again.
        if isEmpty {
            rows = patch.rows
            deleted = patch.deleted
            texts = patch.texts
            return
        }
        for (key, text) in patch.texts { texts[key] = text }
        for id in patch.deleted {
            rows[id] = nil
            deleted.insert(id)
        }
        for (id, row) in patch.rows {
            rows[id] = row
            if !deleted.isEmpty { deleted.remove(id) }
        }
    }

    mutating func removeAll() {
        rows.removeAll()
        deleted.removeAll()
        texts.removeAll()
    }

    #if STRATA_INVARIANTS
    /// Misses a deleted record's row, for the test that shows the check catches it.
    mutating func _corruptForTesting() {
        if let (id, _) = rows.first(where: { _ in true }) { deleted.insert(id) }
    }
    #endif
}

/// Changes computed on top of the overlay before they are committed: applied to the
/// overlay only once the transaction that records them succeeded.
struct OverlayPatch {
    /// New rows by ID (disjoint from `deleted`).
    private(set) var rows = RecordRows()
    /// Records the patch deleted.
    private(set) var deleted: Set<ManagedObjectID> = []
    /// Texts the patch inserted or spliced, with their identities.
    private(set) var texts: [TextKey: TextSequence] = [:]
    /// Steps each text's string took in place in this patch. Past
    /// ``TextSequence/stepsWorthARewrite`` the string is left behind (``staleStrings``) and
    /// written once by ``writeTextStrings()``: a save of a thousand keystrokes moved the
    /// string's tail once per step.
    private var stepsInPlace: [TextKey: Int] = [:]
    /// Texts whose row still shows the string from before some of the patch's splices.
    private(set) var staleStrings: Set<TextKey> = []
    /// The largest key inserted, by entity index (0: none). By entity rather than root
    /// and in an array: a bulk save's inserts then neither hash nor walk to the root.
    private var largestKeyByEntity: [Int64] = []
    /// The unordered to-many slots, by record, that a relate of this patch left sorted
    /// (and nothing replaced since): the next relate appending in order needs no sort.
    private var sortedSlots: [ManagedObjectID: Set<Int>] = [:]
    /// By entity index, the largest key of its hierarchy that existed before the patch:
    /// an insert above it cannot name an existing record, so only inserts at or below it
    /// (a log re-inserting a deleted record) look the record up. Empty: look every one up.
    private var knownKeyByEntity: [Int64] = []
    /// By root entity index, key ranges this connection reserved and has not written
    /// (`DocumentState.unwrittenReservations`): no record holds such a key, so an insert of
    /// one is new without a lookup. A big save's keys are reserved before its write, so
    /// they are below the counters, and each insert was one SQLite lookup (a seventh of
    /// W1's processor time; docs/ARCHITECTURE.md, "When new objects get their keys").
    private var reservations: [Int: [ClosedRange<Int64>]] = [:]
    private var lastReservation: (root: Int, range: ClosedRange<Int64>)?
    /// The reservations inserts of the patch used, by root entity index (their lower
    /// bounds): spent once the patch commits.
    private(set) var usedReservations: [Int: Set<Int64>] = [:]

    /// A patch that looks every inserted record up to refuse inserting one that exists.
    init() {}

    /// A patch over records whose keys are at most `knownKeys` (by root entity index), or in
    /// `reservations` (unwritten, by root entity index): an insert of a larger or reserved
    /// key is known to be new without a lookup.
    init(knownKeys: [Int: Int64], reservations: [Int: [ClosedRange<Int64>]] = [:], model: ManagedObjectModel) {
        knownKeyByEntity = model.entities.map { knownKeys[$0.rootEntity.index] ?? 0 }
        self.reservations = reservations.filter { !$0.value.isEmpty }
    }

    /// Records inserted by the patch, per root entity index: the largest key.
    func largestInsertedKey(in model: ManagedObjectModel) -> [Int: Int64] {
        var result: [Int: Int64] = [:]
        for (index, key) in largestKeyByEntity.enumerated() where key > 0 {
            let root = model.entities[index].rootEntity.index
            result[root] = max(result[root] ?? 0, key)
        }
        return result
    }

    /// Every record an operation of the patch named. Computed when asked (only catching
    /// up on other processes' segments asks), so a save does not hash each record again.
    var touched: Set<ManagedObjectID> { deleted.union(rows.keys) }

    /// The texts an operation needs that the patch does not hold yet — the text a splice
    /// changes, the texts of a record inserted again — which the caller gives
    /// (``seedText(_:_:)``) from what is committed, so their identities are the store's.
    mutating func textsToSeed(for operation: ChangeOperation) -> [TextKey] {
        switch operation {
        case .splice(let id, let slot, _):
            let key = TextKey(id: id, slot: slot)
            return texts[key] == nil ? [key] : []
        case .insert(let id, _) where !id.entity.textSlots.isEmpty && !isKnownNew(id):
            return id.entity.textSlots.map { TextKey(id: id, slot: $0) }.filter { texts[$0] == nil }
        default:
            return []
        }
    }

    /// Gives the patch a committed text before it splices it (nil: the store holds only its
    /// string, taken as a first value).
    mutating func seedText(_ key: TextKey, _ sequence: TextSequence?) {
        if let sequence { texts[key] = sequence }
    }

    /// Whether a record exists with the patch's operations so far applied over `base`.
    func holds(_ id: ManagedObjectID, base: (ManagedObjectID) throws -> [PropertyValue]?) throws -> Bool {
        try holds(id, existing: { try base($0) != nil })
    }

    /// Whether a record exists with the patch's operations so far applied over what
    /// `existing` says exists (a check that needs no values).
    func holds(_ id: ManagedObjectID, existing: (ManagedObjectID) throws -> Bool) throws -> Bool {
        if rows[id] != nil { return true }
        if !deleted.isEmpty, deleted.contains(id) { return false }
        return try existing(id)
    }

    /// Applies one operation. `base` gives the current row of a record not yet in the patch.
    ///
    /// A caller that owns its rows (a replay from empty) may let `base` remove the row it
    /// returns, so that changing a large to-many does not copy it; `giveBack` then receives
    /// each row taken that the patch did not keep (a relate of a transient slot, a throw).
    /// - Throws: `.corruptDocument` when an operation changes a record that does not exist,
    ///   or inserts one that exists (no delete between: two writers given one key).
    ///
    /// `existing`, when given, says whether an inserted record not in the patch exists,
    /// instead of `base` (a save asks the snapshot for a batch of them at once).
    mutating func apply(_ operation: ChangeOperation, base: (ManagedObjectID) throws -> [PropertyValue]?,
                        existing: ((ManagedObjectID) throws -> Bool)? = nil,
                        giveBack: (ManagedObjectID, [PropertyValue]) -> Void = { _, _ in }) throws {
        let id = operation.objectID
        if !sortedSlots.isEmpty { forgetSortedSlots(replacedBy: operation) }
        switch operation {
        case .insert(_, let values):
            if rows.updateValue(RowTable.persistent(values, of: id.entity), forKey: id) != nil { throw Self.duplicate(id) }
            // An inserted record's texts start from its values, on every replica alike; a
            // record inserted again (an undo of its delete) keeps its characters when they
            // show them.
            for slot in id.entity.textSlots where slot < values.count {
                let key = TextKey(id: id, slot: slot)
                if !TextSequence.keeps(texts[key], forInsertOf: values[slot]) { texts[key] = TextSequence(base: values[slot].textValue) }
            }
            let reinserted = !deleted.isEmpty && deleted.remove(id) != nil
            if !reinserted, !isKnownNew(id), try existing?(id) ?? (base(id) != nil) { throw Self.duplicate(id) }
            let index = id.entity.index
            if index >= largestKeyByEntity.count {
                largestKeyByEntity.append(contentsOf: repeatElement(0, count: index + 1 - largestKeyByEntity.count))
            }
            if largestKeyByEntity[index] < id.primaryKey { largestKeyByEntity[index] = id.primaryKey }
        case .delete:
            rows[id] = nil
            deleted.insert(id)
        case .update(_, let changes):
            var row = try current(id, base)
            for change in changes where change.slot < row.count && !RowTable.isTransient(change.slot, of: id.entity) {
                row[change.slot] = change.new
                // A value written whole is the row's, not the one its characters would give.
                if !staleStrings.isEmpty { staleStrings.remove(TextKey(id: id, slot: change.slot)) }
            }
            rows[id] = row
        case .splice(_, let slot, let edit):
            // In place: a save of a thousand keystrokes splices one text a thousand times,
            // and copying its characters and rebuilding its string each time was quadratic.
            if rows[id] == nil { rows[id] = try current(id, base) }
            let key = TextKey(id: id, slot: slot)
            var held = texts.removeValue(forKey: key)
            defer { if let held { texts[key] = held } }
            let steps = stepsInPlace[key, default: 0] + edit.steps.count
            let inPlace = steps <= TextSequence.stepsWorthARewrite && !staleStrings.contains(key)
            if inPlace { stepsInPlace[key] = steps } else { staleStrings.insert(key) }
            try rows.withValue(id) { row in
                guard slot < row.count else { throw Self.missing(id) }
                var sequence = held ?? TextSequence(base: row[slot].textValue)
                held = nil
                defer { held = sequence }
                if inPlace {
                    try sequence.apply(edit, toString: &row[slot])
                } else {
                    _ = try sequence.apply(edit, peer: TextSequence.basePeer, resolvingRestores: false)
                }
            }
        case .relate(_, let slot, let added, let removed):
            // In place: a save adding 100,000 employees one flush at a time relates the
            // department 100,000 times, and copying its members each time was quadratic.
            let inPlace = try rows.withValue(id) { row in
                try Self.relate(&row, id, slot: slot, added: added, removed: removed, sortedSlots: &sortedSlots)
            }
            if inPlace == nil {
                var row = try current(id, base)
                do {
                    if try Self.relate(&row, id, slot: slot, added: added, removed: removed, sortedSlots: &sortedSlots) {
                        rows[id] = row
                    } else {
                        giveBack(id, row)
                    }
                } catch {
                    giveBack(id, row)
                    throw error
                }
            }
        }
    }

    /// Writes the strings of the texts whose rows were left behind by the patch's splices
    /// (``staleStrings``), each once from its characters. Called after the last operation,
    /// before anything reads the patch's rows for their values.
    mutating func writeTextStrings() {
        guard !staleStrings.isEmpty else { return }
        for key in staleStrings {
            guard let text = texts[key] else { continue }
            _ = rows.withValue(key.id) { row in
                if key.slot < row.count { row[key.slot] = .string(text.string) }
            }
        }
        staleStrings.removeAll()
        stepsInPlace.removeAll()
    }

    /// Applies a relate operation to `row`; false when the slot is transient (not stored),
    /// and the row is unchanged then and when it throws. Unordered members
    /// stay sorted, as the snapshot lists them; a sort runs only when the appended
    /// members do not already extend a list known to be sorted.
    private static func relate(_ row: inout [PropertyValue], _ id: ManagedObjectID, slot: Int, added: [ManagedObjectID],
                               removed: [ManagedObjectID], sortedSlots: inout [ManagedObjectID: Set<Int>]) throws -> Bool {
        guard slot < row.count, !RowTable.isTransient(slot, of: id.entity) else { return false }
        guard case .objects(var members) = row[slot] else { throw Self.missing(id) }
        row[slot] = .null  // so that `members` is the only reference to the set
        let previousLast = members.last
        members.relate(adding: added, removing: removed)
        if !Self.isOrdered(slot, of: id.entity) {
            members.sortAfterAppending(added, previousLast: previousLast, wasSorted: sortedSlots[id]?.contains(slot) ?? false)
            sortedSlots[id, default: []].insert(slot)
        }
        row[slot] = .objects(members)
        return true
    }

    /// Forgets that an operation's record has sorted members in the slots it replaces.
    private mutating func forgetSortedSlots(replacedBy operation: ChangeOperation) {
        switch operation {
        case .insert(let id, _), .delete(let id, _):
            sortedSlots[id] = nil
        case .update(let id, let changes):
            guard sortedSlots[id] != nil else { return }
            for change in changes { sortedSlots[id]?.remove(change.slot) }
        case .relate, .splice:
            return
        }
    }

    /// Whether an insert of `id` may name a record that exists: its key is neither above
    /// the known keys nor reserved, so ``apply(_:base:existing:giveBack:)`` looks it up.
    /// Changes nothing (reservations are marked spent by the insert itself).
    func mayNameExisting(_ id: ManagedObjectID) -> Bool {
        !isAboveKnownKeys(id) && reservation(holding: id) == nil
    }

    private func isAboveKnownKeys(_ id: ManagedObjectID) -> Bool {
        let index = id.entity.index
        return index < knownKeyByEntity.count && id.primaryKey > knownKeyByEntity[index]
    }

    /// The reserved range holding `id`'s key, if any.
    private func reservation(holding id: ManagedObjectID) -> ClosedRange<Int64>? {
        reservations[id.entity.rootEntityIndex]?.first { $0.contains(id.primaryKey) }
    }

    /// ``mayNameExisting(_:)``'s opposite, marking the reservation it falls in as used.
    private mutating func isKnownNew(_ id: ManagedObjectID) -> Bool {
        if isAboveKnownKeys(id) { return true }
        guard !reservations.isEmpty else { return false }
        let root = id.entity.rootEntityIndex
        if let last = lastReservation, last.root == root, last.range.contains(id.primaryKey) { return true }
        guard let range = reservation(holding: id) else { return false }
        lastReservation = (root, range)
        usedReservations[root, default: []].insert(range.lowerBound)
        return true
    }

    private func current(_ id: ManagedObjectID, _ base: (ManagedObjectID) throws -> [PropertyValue]?) throws -> [PropertyValue] {
        if let row = rows[id] { return row }
        guard !deleted.contains(id), let row = try base(id) else { throw Self.missing(id) }
        return row
    }

    static func isOrdered(_ slot: Int, of entity: EntityDescription) -> Bool {
        guard case .relationship(let index) = entity.slotKinds[slot] else { return false }
        return entity.relationships[index].isOrdered
    }

    /// The error for an insert of a record that exists. `context.kind == .duplicateInsert`
    /// (with the record in `context.object`) lets a reader that knows which segment
    /// inserted it first name both.
    static func duplicate(_ id: ManagedObjectID) -> StrataError {
        StrataError(.corruptDocument,
                    "The log inserts \(id), which already exists in the document (inserted again with no delete between).",
                    context: .init { $0.kind = .duplicateInsert; $0.object = id.description })
    }

    private static func missing(_ id: ManagedObjectID) -> StrataError {
        StrataError(.corruptDocument, "The log changes \(id), which does not exist in the document.",
                    context: .init { $0.object = id.description })
    }
}
