import Foundation

/// Folding a batch insert's chunks into the snapshot tables inside its own write
/// transaction, so that neither the held write nor the overlay keeps every inserted row
/// until the commit (docs/ARCHITECTURE.md, "Batch requests and merges").
///
/// Why inside the transaction: rows of completed chunks are then read back by the writing
/// connection from the snapshot (SQLite shows a connection its own uncommitted rows), the
/// request still commits or rolls back as one (a failure leaves the file, the overlay and
/// the counters as they were), and other processes see nothing until the commit. This
/// process's other threads share the connection: while a fold is under way they wait for
/// the write to end (``DocumentStore/withOpenState(_:)``), so they never see half a request.
///
/// A class: the writer's reads (``DocumentState/valuesInWrite(_:)``, not mutating) keep
/// rows here and may bring the indexes back.
final class BatchFold {
    /// The secondary indexes dropped for the fold, created again before the commit.
    private var indexes: SnapshotIndexRebuild?
    /// The overlay as it was before its rows were folded too, put back by a rollback.
    let overlayBefore: DocumentOverlay
    /// The retention policy the compaction mark moves with.
    let retention: DocumentStore.HistoryRetention
    /// The writing thread: the only one that reads while the fold is under way.
    let thread: pthread_t
    /// Rows the write reads again and again (the records its rows relate to: a department
    /// gains members in every chunk), kept as the fold writes them so that they are not
    /// read back from the snapshot each time. Holds what was in memory when the fold began
    /// (the overlay and the write's earlier chunks) and the records read since.
    private(set) var rows: [ManagedObjectID: [PropertyValue]] = [:]

    init(indexes: SnapshotIndexRebuild, overlayBefore: DocumentOverlay, retention: DocumentStore.HistoryRetention) {
        self.indexes = indexes
        self.overlayBefore = overlayBefore
        self.retention = retention
        thread = pthread_self()
    }

    /// Keeps `values` as the record's row when the fold keeps it already (or `always`).
    func note(_ id: ManagedObjectID, _ values: [PropertyValue], always: Bool = false) {
        if always || rows[id] != nil { rows[id] = values }
    }

    /// Creates the dropped indexes again (once). A read of a folded record finds its
    /// to-many members by the foreign keys of the rows it folded: without their indexes,
    /// each such read would scan the table, so the first one brings them back.
    func restoreIndexes() throws {
        guard let indexes else { return }
        self.indexes = nil
        try indexes.restore()
    }
}

/// What a held write's saves add to the uncompacted log before it commits.
struct PendingLog {
    var segments = 0
    var bytes = 0
    var operations = 0
    var decodedBytes = 0

    mutating func add(segmentOf bytes: Int, decoded: Int, operations: Int, segments count: Int = 1) {
        segments += count
        self.bytes += bytes
        decodedBytes += decoded
        self.operations += operations
    }
}

extension DocumentState {
    /// Whether a thread other than the one folding a batch insert must wait for its write
    /// to end before reading.
    var mustWaitForFold: Bool {
        guard let fold = heldWrite?.fold else { return false }
        return pthread_equal(fold.thread, pthread_self()) == 0
    }

    /// Starts folding when the held write's unfolded saves, with what is uncompacted
    /// already, pass a compaction threshold (automatic compaction would fold them right
    /// after the commit anyway): the overlay and the held write's earlier saves go into the
    /// snapshot now, its later saves as they are made.
    mutating func foldHeldWriteIfDue(_ configuration: DocumentStore.Configuration) throws {
        guard let held = heldWrite, held.fold == nil, isCompactionDue(configuration, pending: held.pending) else { return }
        var rowsByTable: [String: Int] = [:]
        for id in overlay.rows.keys { rowsByTable[schema.table(for: id.entity).name, default: 0] += 1 }
        for patch in held.patches {
            for id in patch.rows.keys { rowsByTable[schema.table(for: id.entity).name, default: 0] += 1 }
        }
        // Deleted rows count as written ones: each costs a descent per index too, and a
        // table that loses at least as many rows as it holds (an undo of the import that
        // filled it) rebuilds its indexes over what is left, which is nothing.
        var deletedByTable: [String: Int] = [:]
        for id in overlay.deleted { deletedByTable[schema.table(for: id.entity).name, default: 0] += 1 }
        for patch in held.patches {
            for id in patch.deleted { deletedByTable[schema.table(for: id.entity).name, default: 0] += 1 }
        }
        for (table, announced) in held.announcedDeletions { deletedByTable[table] = max(deletedByTable[table] ?? 0, announced) }
        for (table, count) in deletedByTable { rowsByTable[table, default: 0] += count }
        // A table that got a full chunk is getting a batch insert, which goes on: its count
        // so far says little about the rows still to come (the first chunk alone is below
        // the rebuild's minimum), so it counts as reaching the minimum.
        let minimum = configuration.indexRebuildMinimumRows
        for (table, count) in rowsByTable where count >= BatchInsertWriter.documentChunkSize {
            rowsByTable[table] = max(count, minimum)
        }
        // Constraint indexes stay: the insert looks each chunk's keys up in them
        // (``BatchInsertUniqueness``), which without them would scan the table per chunk.
        let indexes = try SnapshotIndexRebuild(connection: connection, rowsByTable: rowsByTable, minimumRows: minimum,
                                               keeping: Set(schema.uniquenessIndexes().map(\.name)))
        let fold = BatchFold(indexes: indexes, overlayBefore: overlay, retention: configuration.retention)
        try self.fold(rows: overlay.rows, deleted: overlay.deleted)
        for (id, values) in overlay.rows { fold.note(id, values, always: true) }
        for patch in held.patches {
            try self.fold(rows: patch.rows, deleted: patch.deleted)
            for (id, values) in patch.rows { fold.note(id, values, always: true) }
        }
        heldWrite?.fold = fold
        heldWrite?.patches = []
        overlay.removeAll()
    }

    /// Tells the held write how many records of each table its saves will delete, before
    /// they are saved: an undo of an import deletes every record in chunks, and a fold
    /// that starts after the first chunks decides then which indexes to drop
    /// (``HeldWrite/announcedDeletions``).
    mutating func announceDeletions(of ids: some Sequence<ManagedObjectID>) {
        guard heldWrite != nil else { return }
        // Counted by runs of one entity (an import's records are one run): a table name
        // looked up and hashed per record cost a fortieth of an undo of 1,000,000 rows.
        var counts: [String: Int] = [:]
        var entity: EntityDescription?
        var run = 0
        for id in ids {
            if id.entity !== entity {
                if let entity, run > 0 { counts[schema.table(for: entity).name, default: 0] += run }
                entity = id.entity
                run = 0
            }
            run += 1
        }
        if let entity, run > 0 { counts[schema.table(for: entity).name, default: 0] += run }
        heldWrite?.announcedDeletions = counts
    }

    /// Writes rows and deletions into the snapshot tables, deletions first, rows by key (in
    /// two phases where constraint indexes are UNIQUE: ``SnapshotSchema/clearConstrainedColumns(of:on:)``).
    func fold(rows: RecordRows, deleted: Set<ManagedObjectID>) throws {
        var deleter = SnapshotRowDeleter(connection: connection, schema: schema)
        for id in deleted.sorted() { try deleter.delete(id) }
        try schema.writeKeepingConstraintIndexes(on: connection) {
            try schema.clearConstrainedColumns(of: rows.keys, on: connection)
            var writer = SnapshotRowWriter(connection: connection, schema: schema)
            let batchFold = heldWrite?.fold
            try rows.forEachInIDOrder { id, values in
                try writer.write(id, values)
                batchFold?.note(id, values)
            }
        }
    }

    /// A record's values while the held write folds: the rows the fold keeps, else the
    /// snapshot's (the indexes back first), kept from then on.
    func valuesInFold(_ id: ManagedObjectID, _ fold: BatchFold) throws -> [PropertyValue]? {
        if let row = fold.rows[id] { return row }
        guard try snapshotContains(id) else { return nil }
        try fold.restoreIndexes()
        let row = try currentValues(id)
        if let row { fold.note(id, row, always: true) }
        return row
    }

    /// Before the held write commits: the dropped indexes come back and the compaction mark
    /// moves past every segment of the write, with the retention policy applied.
    func finishFold(_ fold: BatchFold) throws {
        try fold.restoreIndexes()
        try DocumentFile.writeMeta(connection, key: "compactedThrough", .integer(Int64(lastSequence)))
        _ = try applyRetention(fold.retention)
    }

    /// After a compaction, or the commit of a folded write: everything up to the last
    /// segment is in the snapshot.
    mutating func completeFold() {
        meta.compactedThrough = lastSequence
        overlay.removeAll()
        uncompactedSegments = 0
        uncompactedBytes = 0
        uncompactedOperations = 0
        uncompactedDecodedBytes = 0
    }
}
