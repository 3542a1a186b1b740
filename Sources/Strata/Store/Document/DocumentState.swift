import Foundation
import OrderedCollections

/// Everything a document store guards with its lock: the connection, the overlay, the
/// log position and the key counters — and what it reads them with: the snapshot schema,
/// the model, the tag of the store's object IDs and the largest segment it decodes.
/// `@unchecked Sendable`: only ever touched under the store's lock (`Locked`).
struct DocumentState: @unchecked Sendable {
    let connection: SQLiteConnection
    /// The snapshot tables' layout.
    let schema: SnapshotSchema
    /// The model the store was opened with.
    let model: ManagedObjectModel
    /// The tag of the store's object IDs.
    let storeTag: UInt32
    /// The largest raw segment body decoded (``DocumentStore/Configuration/maxSegmentSize``).
    let maxSegmentSize: Int
    var isOpen = true
    var meta: DocumentFile.Meta
    /// The highest segment sequence applied to the overlay.
    var lastSequence: UInt64
    var overlay = DocumentOverlay()
    var uncompactedSegments = 0
    var uncompactedBytes = 0
    /// Operations and decoded bytes of the uncompacted segments (the costs of an open).
    var uncompactedOperations = 0
    var uncompactedDecodedBytes = 0
    /// The largest primary key handed out or seen, per root entity index.
    var keyCounters: [Int: Int64] = [:]
    /// Key ranges this connection reserved (``allocateKeys(root:name:count:)``) that no save
    /// has written into yet, by root entity index: inserts of their keys need no lookup.
    var unwrittenReservations: [Int: [ClosedRange<Int64>]] = [:]
    var largestGroupID: UInt64 = 0
    /// The keys and group ids this document hands out when it is a replica of a remote
    /// (``SyncRecords``): other replicas' keys, taken in with their segments, never move
    /// the counters. Nil: every key counts. Read with the counters.
    var replicaKeys: Range<Int64>?
    /// Records other connections changed, found by catch-ups since a write last handed
    /// them to its body (`DocumentStore.performWrite`).
    var externalChanges: Set<ManagedObjectID> = []
    /// What catch-ups found other connections inserted, updated and deleted, until the
    /// store hands it to its coordinator (``DocumentStore/catchUp()``).
    var pendingRemoteChanges = PendingRemoteChanges()
    /// The write transaction a context's save holds from its catch-up to its write
    /// (`DocumentStore.performWrite`), with what to apply once it commits.
    var heldWrite: HeldWrite?
    /// How many catch-ups read the log since the store opened (tests count them).
    var catchUps = 0

    struct HeldWrite {
        /// What the write's catch-up found other connections changed (with what earlier
        /// catch-ups found), handed to its body and to nested writes.
        var changedElsewhere: Set<ManagedObjectID> = []
        /// The overlay and counter updates of the writes made in it, applied after COMMIT.
        var afterCommit: [(inout DocumentState) -> Void] = []
        /// `lastSequence` before this transaction appended its own segment.
        var sequenceBeforeOwnWrite: UInt64?
        /// The overlay patches of the writes made in it, oldest first: a later write in
        /// the same transaction (the next chunk of a batch insert) builds on them. Merged
        /// into the overlay after COMMIT; empty once a batch insert folds (``fold``).
        var patches: [OverlayPatch] = []
        /// What the writes in `patches` add to the uncompacted log.
        var pending = PendingLog()
        /// Set once a batch insert folds the write's rows into the snapshot as it goes.
        var fold: BatchFold?
        /// Records the write's later saves will delete, by snapshot table, as the write
        /// announced them (``DocumentState/announceDeletions(of:)``): a fold that starts
        /// before they are saved weighs them when it decides which indexes to drop.
        var announcedDeletions: [String: Int] = [:]
        /// Key ranges reserved inside the write and not yet written, by root entity index:
        /// the write's saves insert them without a lookup, as `unwrittenReservations`
        /// (which they join after COMMIT; a rollback forgets them).
        var reservations: [Int: [ClosedRange<Int64>]] = [:]
        /// The key counters before the write's first reservation, put back if it rolls
        /// back: nothing of a rolled-back write stays in memory.
        var countersBeforeReservations: (keys: [Int: Int64], meta: [String: Int64])?
    }

    init(connection: SQLiteConnection, meta: DocumentFile.Meta, schema: SnapshotSchema, model: ManagedObjectModel,
         storeTag: UInt32, maxSegmentSize: Int) {
        self.connection = connection
        self.schema = schema
        self.model = model
        self.storeTag = storeTag
        self.maxSegmentSize = maxSegmentSize
        self.meta = meta
        self.lastSequence = meta.compactedThrough
    }

    // MARK: Reading the log

    /// Applies the segments after `sequence` to the overlay (at open, and before every
    /// write, to take in other processes' saves). Returns the records they touched.
    @discardableResult
    /// `last` stops at that segment (a pinned query generation reads the log up to its save).
    mutating func catchUp(from sequence: UInt64? = nil, through last: UInt64 = UInt64(Int64.max)) throws -> Set<ManagedObjectID> {
        // Outside a transaction every statement would read its own version of the file: a
        // compaction committing between reading the compaction mark and reading the segments
        // (or the snapshot rows they are applied to) would have segments it folded applied
        // again over a snapshot that already holds them — a false "inserted again". One read
        // transaction reads one version.
        guard connection.isAutocommit else { return try catchUpInTransaction(from: sequence, through: last) }
        return try connection.transaction(.deferred) { try catchUpInTransaction(from: sequence, through: last) }
    }

    private mutating func catchUpInTransaction(from sequence: UInt64?, through last: UInt64) throws -> Set<ManagedObjectID> {
        if keyCounters.isEmpty { try loadCounters() }
        // A held write caught up as it began, and no one else can have committed since:
        // a save catches up once (docs/ARCHITECTURE.md, "Save").
        if sequence == nil, heldWrite != nil { return [] }
        if sequence == nil { try checkNotMigratedElsewhere() }
        catchUps += 1
        var touched: Set<ManagedObjectID> = []
        // Only catch-ups after open report changes (`sequence` is given only at open).
        let reports = sequence == nil
        var inserted: Set<ManagedObjectID> = []
        if sequence == nil, let compacted = try storedCompactionMark(), compacted > lastSequence {
            // Another connection compacted segments this one never read: they are only in
            // the snapshot now. The overlay may hold older rows of the records they changed,
            // which would hide the snapshot's (and a compaction from here would write them
            // back over it), so it starts again from the snapshot.
            let previous = Set(overlay.rows.keys).union(overlay.deleted)
            externalChanges.formUnion(previous)
            if let gap = try recordsInCompactedGap(after: lastSequence, through: compacted) {
                // Its retention kept them: they say exactly what changed.
                touched = gap.touched
                inserted = gap.inserted
            } else {
                touched = previous
                pendingRemoteChanges.mayHaveChangedEverything = true
            }
            pendingRemoteChanges.applied((lastSequence + 1)...compacted)
            externalChanges.formUnion(touched)
            overlay.removeAll()
            keyCounters = [:]
            try loadCounters()
            lastSequence = compacted
            meta.compactedThrough = compacted
            uncompactedSegments = 0
            uncompactedBytes = 0
            uncompactedOperations = 0
            uncompactedDecodedBytes = 0
        }
        let start = sequence ?? lastSequence
        for (seq, rawSize, body) in try LogTables.bodies(connection, after: start, through: last) {
            let segment = try SegmentCodec.decodeCompressed(
                body, model: model, storeTag: storeTag, sequenceHint: UInt64(seq), maxContentSize: maxSegmentSize)
            var patch = OverlayPatch(knownKeys: keyCounters, model: model)
            for group in segment.groups {
                if isOwnKey(Int64(bitPattern: group.id)) { largestGroupID = max(largestGroupID, group.id) }
                for operation in group.operations {
                    try apply(operation, to: &patch, inWrite: false)
                    if reports, case .insert(let id, _) = operation { inserted.insert(id) }
                }
            }
            patch.writeTextStrings()
            overlay.merge(patch)
            touched.formUnion(patch.touched)
            externalChanges.formUnion(patch.touched)
            for (root, key) in patch.largestInsertedKey(in: model) where isOwnKey(key) {
                keyCounters[root] = max(keyCounters[root] ?? 0, key)
            }
            lastSequence = UInt64(seq)
            uncompactedSegments += 1
            uncompactedBytes += body.count
            uncompactedOperations += segment.operationCount
            uncompactedDecodedBytes += rawSize
            if reports { pendingRemoteChanges.applied(UInt64(seq)...UInt64(seq)) }
        }
        if reports, !touched.isEmpty { try noteRemoteChanges(touched: touched, inserted: inserted) }
        return touched
    }

    /// The compaction mark as the file holds it now (another connection may have moved it).
    private func storedCompactionMark() throws -> UInt64? {
        let rows = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'compactedThrough'").rows()
        guard case .integer(let value)? = rows.first?.first, value >= 0 else { return nil }
        return UInt64(value)
    }

    private mutating func loadCounters() throws {
        replicaKeys = try SyncRecords.replicaKeyRange(connection)
        let range = replicaKeys ?? Int64.min..<Int64.max
        let floor = replicaKeys.map { $0.lowerBound - 1 } ?? 0
        for root in model.entities where root.superentity == nil {
            let stored = meta.keyCounters[root.name] ?? 0
            let largest = try connection.prepare("SELECT MAX(_pk) FROM \(SnapshotSchema.quote(root.name)) WHERE _pk >= ? AND _pk < ?")
                .rows([.integer(range.lowerBound), .integer(range.upperBound)])
            var value = Swift.max(stored, floor)
            if case .integer(let max)? = largest.first?.first { value = Swift.max(value, max) }
            keyCounters[root.index] = value
        }
        largestGroupID = max(largestGroupID, UInt64(floor))
        largestGroupID = max(largestGroupID, try LogTables.largestGroupID(connection, in: range))
        largestGroupID = max(largestGroupID, try DocumentFile.readCounters(connection).groups)
    }

    /// Whether a key (or group id) is one this document handed out, or might have: every
    /// key, unless the document is a replica (``replicaKeys``).
    func isOwnKey(_ key: Int64) -> Bool { replicaKeys?.contains(key) ?? true }

    // MARK: Reading records

    /// A record's values as a write inside the held write sees them: the held write's own
    /// earlier writes (not in the overlay until COMMIT), else ``currentValues(_:)``.
    func valuesInWrite(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        if let fold = heldWrite?.fold { return try valuesInFold(id, fold) }
        if let patches = heldWrite?.patches {
            for patch in patches.reversed() {
                if let row = patch.rows[id] { return row }
                if patch.deleted.contains(id) { return nil }
            }
        }
        return try currentValues(id)
    }

    /// A record's persistent values: the overlay's, else the snapshot's.
    func currentValues(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        switch overlay.lookup(id) {
        case .row(let row): return withoutDeletedMembers(row)
        case .deleted: return nil
        case .unknown: return try snapshotValues(id).map(withoutDeletedMembers)
        }
    }

    func withoutDeletedMembers(_ row: [PropertyValue]) -> [PropertyValue] {
        guard !overlay.deleted.isEmpty else { return row }
        return row.map { value in
            guard case .objects(let members) = value, members.contains(where: overlay.deleted.contains) else { return value }
            return .objects(members.filter { !overlay.deleted.contains($0) })
        }
    }

    /// Whether the snapshot tables hold the record.
    func snapshotContains(_ id: ManagedObjectID) throws -> Bool {
        let table = schema.table(for: id.entity)
        let sql = "SELECT 1 FROM \(SnapshotSchema.quote(table.name)) WHERE \"_pk\" = ? AND \(table.entitySQL(alias: nil)) = ?"
        return try !connection.prepare(sql).rows([.integer(id.primaryKey), .integer(Int64(id.entity.index))]).isEmpty
    }

    /// A record's values as the snapshot tables hold them.
    func snapshotValues(_ id: ManagedObjectID) throws -> [PropertyValue]? {
        try rowReader.value(of: id)
    }

    /// What reads the snapshot tables' rows, a batch at a time.
    var rowReader: SnapshotRowReader {
        SnapshotRowReader(connection: connection, schema: schema, storeTag: storeTag)
    }

    /// Several records' persistent values, in the order of `ids` (nil where a record does
    /// not exist): the overlay's where it has them, the rest read from the snapshot in one
    /// batch (``SnapshotRowReader``), members deleted in the overlay filtered out as
    /// ``currentValues(_:)`` does.
    func currentValues(_ ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        var result = [[PropertyValue]?](repeating: nil, count: ids.count)
        var unknown: [Int] = []
        for (position, id) in ids.enumerated() {
            switch overlay.lookup(id) {
            case .row(let row): result[position] = withoutDeletedMembers(row)
            case .deleted: continue
            case .unknown: unknown.append(position)
            }
        }
        guard !unknown.isEmpty else { return result }
        let read = try rowReader.values(of: unknown.map { ids[$0] })
        for (index, position) in unknown.enumerated() {
            result[position] = read[index].map(withoutDeletedMembers)
        }
        return result
    }

    private func members(_ rows: [[SQLiteValue]], fallback: EntityDescription?, storeTag: UInt32) -> [ManagedObjectID] {
        rows.compactMap { row in
            guard case .integer(let pk) = row[0] else { return nil }
            var entity = fallback
            if row.count > 1, case .integer(let index) = row[1] { entity = schema.model.entities[safe: Int(index)] }
            return entity.map { ManagedObjectID(entity: $0, storeTag: storeTag, primaryKey: pk) }
        }
    }

    /// Every record of the entities, in ID order.
    func objectIDs(for entities: [EntityDescription]) throws -> [ManagedObjectID] {
        var result: Set<ManagedObjectID> = []
        let byRoot = Dictionary(grouping: entities, by: { $0.rootEntity.index })
        for (rootIndex, members) in byRoot {
            let root = schema.model.entities[rootIndex]
            let indexes = members.map { String($0.index) }.joined(separator: ", ")
            let table = schema.table(for: root)
            let entitySQL = table.entitySQL(alias: nil)
            let rows = try connection.prepare(
                "SELECT \"_pk\", \(entitySQL) FROM \(SnapshotSchema.quote(table.name)) WHERE \(entitySQL) IN (\(indexes))").rows()
            for id in self.members(rows, fallback: nil, storeTag: storeTag) where !overlay.deleted.contains(id) {
                result.insert(id)
            }
        }
        let wanted = Set(entities.map(ObjectIdentifier.init))
        for id in overlay.rows.keys where wanted.contains(ObjectIdentifier(id.entity)) { result.insert(id) }
        return result.sorted()
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
