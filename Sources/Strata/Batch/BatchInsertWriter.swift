import Foundation
import OrderedCollections

/// Writes the rows of a batch insert through a store's own `save`: one insert operation per
/// row and, in the same segment, one operation per record whose inverse relationship the
/// chunk's rows join (a relate for an unordered to-many, an update otherwise), as a
/// context save records both sides. Rows without a reserved ID take permanent IDs from one
/// reservation per chunk (``allocate``, the store's ``PersistentStore/allocatePrimaryKeys(for:count:)``),
/// above every key in use, so the store need not look each one up; no temporary ID reaches
/// the save (docs/ARCHITECTURE.md, "When new objects get their keys").
///
/// **Bounded memory.** Rows are pulled from the source ``StoreBatchInsert`` and written in
/// chunks of ``chunkSize`` rows, each chunk one segment whose only group carries the
/// request's group id (the first save gives it its permanent id, later chunks reuse it;
/// history and ``ContextUndoManager/restoreHistory(_:)`` merge consecutive groups with one
/// id). Inside a context's batch the store's write is held (`PersistentStore.performWrite`),
/// so the chunks commit together or not at all, and `values` reads what earlier chunks
/// wrote. What stays in memory across chunks: the inserted IDs the result asks for
/// (``StoreBatchInsert/listing``: none for `.statusOnly`, a set for merging, and the list
/// in order for `.objectIDs`), the reserved IDs rows took, the members waiting for a later
/// reserved row — and, only for an undoable request whose store keeps no log to read them
/// back from (``readsGroupFromLog`` false), the operations.
struct BatchInsertWriter {
    /// Rows per segment for a document.
    static let documentChunkSize = 10_000

    let storeTag: UInt32
    /// Rows per segment; `Int.max` writes one segment.
    let chunkSize: Int
    /// A record's values as the write sees them (earlier chunks included), or nil when it
    /// does not exist.
    let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// Reserves consecutive keys for records of an entity's hierarchy (the store's
    /// ``PersistentStore/allocatePrimaryKeys(for:count:)``).
    let allocate: (EntityDescription, Int) throws -> ClosedRange<Int64>
    /// Saves a group, giving its group id a permanent one.
    let save: (SegmentGroup) throws -> StoreSaveResult
    /// The store's fetch, which finds the records holding a row's constrained key
    /// (``BatchInsertUniqueness``).
    let fetch: (StoreFetchRequest) throws -> [ManagedObjectID]
    /// Whether the store's log keeps every segment of the group, so an undo can read the
    /// operations back (``DocumentStore/loggedOperations(ofGroup:)``) and an undoable
    /// request need not hold them.
    var readsGroupFromLog = false

    func run(_ request: StoreBatchRequest, rows: StoreBatchInsert) throws -> StoreBatchOutcome {
        let entity = rows.entity
        var graph = BatchInsertGraph(entity: entity, storeTag: storeTag, values: values)
        var groupID = request.groupID
        var savedGroupID: UInt64?
        // Each list of IDs only when the result asks for it: a million inserted IDs take
        // 24 MB as a list and 50 MB as a set (docs/LIMITS.md, "Batch inserts").
        let listing = rows.listing
        var inserted: [ManagedObjectID] = []
        var insertedSet: Set<ManagedObjectID> = []
        var count = 0
        var updated: Set<ManagedObjectID> = []
        var kept: [ChangeOperation] = []
        let keepsOperations = request.kind == .user && !readsGroupFromLog
        var chunk = BatchInsertChunk()
        var uniqueness = BatchInsertUniqueness(entity: entity, policy: rows.mergePolicy, values: values, fetch: fetch)

        func flush(last: Bool) throws {
            // Rows whose keys are taken: an error, or merged into the records holding them.
            var merges: [ChangeOperation] = []
            if !chunk.rows.isEmpty, uniqueness != nil {
                let resolved = try uniqueness!.resolve(&chunk)
                merges = resolved.operations
                updated.formUnion(resolved.updated)
            }
            guard !chunk.rows.isEmpty || !merges.isEmpty else {
                if last { try graph.finish() }
                chunk.removeAll()
                return
            }
            // Rows without a reserved ID take consecutive keys of one reservation for the
            // chunk (above every key in use, so the store need not look each one up).
            let unnamed = chunk.ids.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
            if unnamed > 0 {
                var key = try allocate(entity, unnamed).lowerBound
                var scopes = ObjectIDScopeCache()
                for index in chunk.ids.indices where chunk.ids[index] == nil {
                    chunk.ids[index] = scopes.id(entity, storeTag: storeTag, primaryKey: key)
                    key += 1
                }
            }
            // Relationships once every row has its ID: a row's inverse may change a row
            // before or after it in the chunk.
            for index in chunk.rows.indices { try graph.relate(index: index, chunk: &chunk) }
            if last { try graph.finish() }
            var operations: [ChangeOperation] = []
            operations.reserveCapacity(chunk.rows.count)
            for index in chunk.rows.indices { operations.append(.insert(chunk.ids[index]!, values: chunk.rows[index])) }
            let (inverses, changed) = graph.takeChunkOperations()
            operations += inverses
            operations += merges
            updated.formUnion(changed)
            // The derived values the chunk changes, in its segment: the rows' own and those
            // of the records they join (a department's `employees.@count`).
            let completed = try BatchDerivations.complete(operations, model: entity.model, now: request.timestamp, values: values)
            operations = completed.0
            updated.formUnion(completed.1)
            let saved = try save(SegmentGroup(id: groupID, kind: request.kind, revertsGroup: nil,
                                              actionName: request.actionName, operations: operations))
            groupID = saved.groupIDs[groupID] ?? groupID
            savedGroupID = groupID
            count += chunk.ids.count
            if listing != .none {
                for case let id? in chunk.ids {
                    insertedSet.insert(id)
                    if listing == .ordered { inserted.append(id) }
                }
            }
            if keepsOperations { kept += operations }
            // The keys the chunk wrote, for the next chunks' checks.
            if !last, uniqueness != nil {
                for (index, values) in chunk.rows.enumerated() { uniqueness!.note(values, of: chunk.ids[index]!) }
            }
            chunk.removeAll()
        }

        chunk.rows.reserveCapacity(min(chunkSize, Self.documentChunkSize))
        while let row = try rows.next() {
            try chunk.append(row, number: rows.rowNumber, graph: &graph)
            if chunk.rows.count >= chunkSize { try flush(last: false) }
        }
        try flush(last: true)

        var changes = SaveChanges()
        changes.inserted = insertedSet
        changes.updated = updated
        let group = savedGroupID.map {
            SegmentGroup(id: $0, kind: request.kind, revertsGroup: nil, actionName: request.actionName, operations: kept)
        }
        var outcome = StoreBatchOutcome(matched: inserted, changes: changes, group: group, savedGroupID: savedGroupID)
        outcome.count = count
        outcome.readsGroupFromLog = request.kind == .user && readsGroupFromLog
        return outcome
    }
}

/// The rows of one chunk, not yet written: their values change while later rows of the
/// chunk name them (their inverse relationships).
struct BatchInsertChunk {
    var rows: [[PropertyValue]] = []
    /// The rows' IDs: reserved ones from the start, the others once the chunk's keys are
    /// allocated (always permanent).
    var ids: [ManagedObjectID?] = []
    /// The rows' numbers in the request (from 1).
    var numbers: [Int] = []
    /// Reserved ID → index in `rows`.
    var indexByID: [ManagedObjectID: Int] = [:]
    /// Row index → slot → members that earlier rows added to the row before it came (their
    /// side is already set).
    var earlyMembers: [Int: [Int: Set<ManagedObjectID>]] = [:]

    mutating func append(_ row: StoreBatchInsert.Row, number: Int, graph: inout BatchInsertGraph) throws {
        var values = row.values
        if let id = row.objectID {
            let early = try graph.claim(id, number: number, values: &values)
            if !early.isEmpty { earlyMembers[rows.count] = early }
            indexByID[id] = rows.count
        }
        rows.append(values)
        ids.append(row.objectID)
        numbers.append(number)
    }

    /// Takes rows out of the chunk (merged into records holding their keys). They carry no
    /// reserved ID, so no other row's members wait for them.
    mutating func remove(rowsAt indices: [Int]) {
        guard !indices.isEmpty else { return }
        let gone = Set(indices)
        var newIndex: [Int: Int] = [:]
        var keptRows: [[PropertyValue]] = [], keptIDs: [ManagedObjectID?] = [], keptNumbers: [Int] = []
        for index in rows.indices where !gone.contains(index) {
            newIndex[index] = keptRows.count
            keptRows.append(rows[index])
            keptIDs.append(ids[index])
            keptNumbers.append(numbers[index])
        }
        rows = keptRows
        ids = keptIDs
        numbers = keptNumbers
        indexByID = indexByID.compactMapValues { newIndex[$0] }
        earlyMembers = Dictionary(uniqueKeysWithValues: earlyMembers.compactMap { index, members in newIndex[index].map { ($0, members) } })
    }

    mutating func removeAll() {
        rows.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        numbers.removeAll(keepingCapacity: true)
        indexByID.removeAll(keepingCapacity: true)
        earlyMembers.removeAll()
    }
}

/// A record a chunk of a batch insert changes: its values before and after. A class, so
/// that a member list grows in place behind the dictionary that holds it, whatever the
/// dictionary's accessors do: one destination may gain every row of the request
/// (100,000 employees into one department), and a copy per row is quadratic.
private final class TouchedRecord {
    let old: [PropertyValue]
    var new: [PropertyValue]

    init(_ values: [PropertyValue]) {
        old = values
        new = values
    }
}

/// The records a batch insert's rows relate to — existing ones and the request's own rows
/// with reserved IDs — and the values their inverse relationships take, one chunk at a time.
struct BatchInsertGraph {
    let entity: EntityDescription
    let storeTag: UInt32
    let values: (ManagedObjectID) throws -> [PropertyValue]?
    /// Records known to exist that need no change (a relationship without an inverse).
    private var existing: Set<ManagedObjectID> = []
    /// Records whose values the chunk changes: before and after, in the order first touched.
    private var touched: OrderedDictionary<ManagedObjectID, TouchedRecord> = [:]
    /// Which of them are rows of the request (written by an earlier chunk).
    private var touchedRows: Set<ManagedObjectID> = []
    /// For to-one inverses of existing records: the row that took a record's slot.
    private var claims: [ManagedObjectID: [Int: Int]] = [:]
    /// The reserved IDs rows took so far.
    private var named: Set<ManagedObjectID> = []
    /// Reserved IDs named before their row came: slot → members to add, and the first row
    /// that named it (for the error when the row never comes).
    private var forward: [ManagedObjectID: (adds: [Int: [ManagedObjectID]], number: Int, key: String)] = [:]

    init(entity: EntityDescription, storeTag: UInt32, values: @escaping (ManagedObjectID) throws -> [PropertyValue]?) {
        self.entity = entity
        self.storeTag = storeTag
        self.values = values
    }

    /// Whether an ID not in the store may be a later row's reserved one.
    private func mayBeReserved(_ id: ManagedObjectID) -> Bool {
        id.entity === entity && id.storeTag == storeTag && !id.isTemporaryID
    }

    /// Takes a reserved ID for a row: it must be this store's, not a record yet and not
    /// another row's; members named before the row came join its values (returned by slot).
    mutating func claim(_ id: ManagedObjectID, number: Int, values row: inout [PropertyValue]) throws -> [Int: Set<ManagedObjectID>] {
        let key = BatchInsertRequest.objectIDKey
        guard id.storeTag == storeTag else { throw invalid(number, key, "\(id) was reserved in another store") }
        guard named.insert(id).inserted else { throw invalid(number, key, "\(id) is the ID of an earlier row of the request") }
        guard try values(id) == nil else { throw invalid(number, key, "\(id) is already a record in the store") }
        guard let pending = forward.removeValue(forKey: id) else { return [:] }
        for (slot, members) in pending.adds {
            for member in members { try Self.add(member, to: &row[slot], of: id, slot: slot, number: number, entity: entity) }
        }
        return pending.adds.mapValues(Set.init)
    }

    /// Checks that the row's destinations exist and gives their inverses the new record.
    mutating func relate(index: Int, chunk: inout BatchInsertChunk) throws {
        let row = chunk.rows[index]
        let id = chunk.ids[index]!
        let number = chunk.numbers[index]
        for relationship in entity.relationships where !relationship.isTransient {
            let destinations = row[relationship.slot].objectIDs
            guard !destinations.isEmpty else { continue }
            guard let inverseSlot = relationship.inverseSlot else {
                for destination in destinations where !existing.contains(destination) && !named.contains(destination) {
                    if try values(destination) != nil {
                        existing.insert(destination)
                        continue
                    }
                    guard mayBeReserved(destination) else { throw missing(destination, relationship, number) }
                    if forward[destination] == nil { forward[destination] = ([:], number, relationship.name) }
                }
                continue
            }
            let early = chunk.earlyMembers[index]?[relationship.slot] ?? []
            for destination in destinations where !early.contains(destination) {
                try addInverse(of: id, to: destination, slot: inverseSlot, via: relationship, number: number, chunk: &chunk)
            }
        }
    }

    private mutating func addInverse(of id: ManagedObjectID, to destination: ManagedObjectID, slot: Int,
                                     via relationship: RelationshipDescription, number: Int, chunk: inout BatchInsertChunk) throws {
        if let index = chunk.indexByID[destination] {
            // A row of this chunk: its values change before it is written.
            try Self.add(id, to: &chunk.rows[index][slot], of: destination, slot: slot, number: number, entity: entity)
            return
        }
        if touched[destination] == nil {
            guard let row = try values(destination) else {
                // Perhaps a later row's reserved ID: its row takes the member when it comes.
                guard mayBeReserved(destination), !named.contains(destination) else { throw missing(destination, relationship, number) }
                var pending = forward[destination] ?? ([:], number, relationship.name)
                pending.adds[slot, default: []].append(id)
                forward[destination] = pending
                return
            }
            touched[destination] = TouchedRecord(row)
            if named.contains(destination) { touchedRows.insert(destination) }
        }
        if touchedRows.contains(destination) {
            // A row of the request written by an earlier chunk: as a row of this chunk.
            try Self.add(id, to: &touched[destination]!.new[slot], of: destination, slot: slot, number: number, entity: entity)
        } else {
            try addToExisting(id, destination, slot: slot, via: relationship, number: number)
        }
    }

    /// Adds `member` to a value of a row of the request (to-many: appended; to-one: set
    /// when empty, an error when it holds another record).
    ///
    /// The list is let go of before it grows: with `value` still holding it, every append
    /// copied it, quadratic in the members of one destination (100,000 employees into one
    /// department took minutes). Static, so that no copy of `self` holds it either.
    private static func add(_ member: ManagedObjectID, to value: inout PropertyValue, of owner: ManagedObjectID, slot: Int,
                            number: Int, entity: EntityDescription) throws {
        // `if case`, not `switch`: a debug build keeps a switch's subject alive through the
        // case body, so the list would still be shared when it grows.
        if case .objects(var members) = value {
            value = .null
            members.append(member)
            value = .objects(members)
            return
        }
        if case .object(let current) = value, current != member {
            let key = owner.entity.slotNames[slot]
            throw invalid(number, key, "\(owner) already has \(current) as its \(input: key), which holds one record; the row names it too",
                          entity: entity)
        }
        value = .object(member)
    }

    private mutating func addToExisting(_ id: ManagedObjectID, _ destination: ManagedObjectID, slot: Int,
                                        via relationship: RelationshipDescription, number: Int) throws {
        if case .objects = touched[destination]!.new[slot] {
            try Self.add(id, to: &touched[destination]!.new[slot], of: destination, slot: slot, number: number, entity: entity)
            return
        }
        // A to-one inverse: the new record takes the destination from its owner.
        if let row = claims[destination]?[slot] {
            throw invalid(number, relationship.name,
                          "\(destination) is already taken by row \(row): its inverse '\(destination.entity.slotNames[slot])' holds one record")
        }
        claims[destination, default: [:]][slot] = number
        if case .object(let owner) = touched[destination]!.new[slot], owner != id {
            if touched[owner] == nil, let values = try values(owner) { touched[owner] = TouchedRecord(values) }
            if touched[owner] != nil { Self.remove(destination, from: &touched[owner]!.new[relationship.slot]) }
        }
        touched[destination]!.new[slot] = .object(id)
    }

    /// Removes `member` from a relationship value, in place (the list let go of first, as in
    /// ``add(_:to:of:slot:number:entity:)``).
    private static func remove(_ member: ManagedObjectID, from value: inout PropertyValue) {
        if case .objects(var members) = value {
            value = .null
            members.remove(member)
            value = .objects(members)
        } else if case .object(member) = value {
            value = .null
        }
    }

    /// Throws when a row named a reserved ID that no row of the request took.
    func finish() throws {
        guard let (id, pending) = forward.min(by: { $0.value.number < $1.value.number }) else { return }
        throw StrataError(
            .validation, "Row \(pending.number) of the batch insert sets '\(entity.name).\(pending.key)' to \(id), which is neither a record in the store nor a row of the request.",
            problems: [StrataError.Problem(entityName: entity.name, object: "row \(pending.number)", key: pending.key,
                                           reason: "\(id) is not a record in the store")],
            context: .init { $0.entity = entity.name; $0.key = pending.key; $0.object = id.description; $0.row = pending.number })
    }

    /// The operations taking the records the chunk touched from their old values to their
    /// new ones — a relate per changed unordered to-many, one update for the other slots —
    /// and the records they change; the next chunk reads them from the store again.
    mutating func takeChunkOperations() -> ([ChangeOperation], Set<ManagedObjectID>) {
        var operations: [ChangeOperation] = []
        var changed: Set<ManagedObjectID> = []
        for (id, values) in touched where values.old != values.new {
            changed.insert(id)
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
        touched.removeAll()
        touchedRows.removeAll()
        return (operations, changed)
    }

    private func missing(_ destination: ManagedObjectID, _ relationship: RelationshipDescription, _ number: Int) -> StrataError {
        let reason = "\(destination) is not a record in the store"
        return StrataError(
            .validation, "Row \(number) of the batch insert sets '\(entity.name).\(relationship.name)' to \(destination), which is not a record in the store.",
            problems: [StrataError.Problem(entityName: entity.name, object: "row \(number)", key: relationship.name, reason: reason)],
            context: .init { $0.entity = entity.name; $0.key = relationship.name; $0.object = destination.description; $0.row = number })
    }

    private func invalid(_ number: Int, _ key: String, _ reason: String) -> StrataError {
        Self.invalid(number, key, reason, entity: entity)
    }

    private static func invalid(_ number: Int, _ key: String, _ reason: String, entity: EntityDescription) -> StrataError {
        StrataError(.validation, "Row \(number) of the batch insert has an invalid '\(entity.name).\(key)': \(reason).",
                    problems: [StrataError.Problem(entityName: entity.name, object: "row \(number)", key: key, reason: reason)],
                    context: .init { $0.entity = entity.name; $0.key = key; $0.row = number })
    }
}
