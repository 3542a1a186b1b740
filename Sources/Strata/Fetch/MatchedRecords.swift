/// What a context's fetch matched: the IDs in the fetch's order and, when the stores read
/// them in the same pass (``PersistentStore/fetchRecords(_:)``), the records' stored
/// values, which then fill the fetched objects with no further read.
struct MatchedRecords {
    /// The matching IDs, in order, within the window.
    var ids: [ManagedObjectID]
    /// The stored values by position in ``ids``; empty when the fetch read none, nil for a
    /// record whose values were not read with it (a pending object, loaded already).
    var values: [[PropertyValue]?] = []
    /// The last rows the stores returned, as many as the coordinator's row cache keeps
    /// (``RowCache/limit``): the rest would only be dropped there, and holding them all
    /// would add a third list of the records to a big fetch's peak memory.
    var read: [StoreRecord] = []
    /// The stored values by position in ``ids``, kept column by column, when the fetch
    /// streamed them into batches (``FetchedRowBatch``; empty otherwise, and ``values`` is
    /// then empty): position `p` is row `p % rowLimit` of batch `p / rowLimit`.
    var batches: [FetchedRowBatch] = []

    init(ids: [ManagedObjectID]) {
        self.ids = ids
    }

    init(ids: [ManagedObjectID], values: [[PropertyValue]?], read: [StoreRecord]) {
        self.ids = ids
        self.values = values
        self.read = read
    }

    init(ids: [ManagedObjectID], batches: [FetchedRowBatch]) {
        self.ids = ids
        self.batches = batches
    }

    /// The batch and row of position `position` of a streamed fetch.
    func batchRow(at position: Int) -> (batch: FetchedRowBatch, row: Int) {
        (batches[position / FetchedRowBatch.rowLimit], position % FetchedRowBatch.rowLimit)
    }

    /// The records a store returned, with their values.
    init(records: [StoreRecord]) {
        ids = records.map(\.objectID)
        values = records.map(\.values)
        read = records.count > RowCache.limit ? Array(records.suffix(RowCache.limit)) : records
    }

    /// The values read, by ID (empty when none were).
    func valuesByID() -> [ManagedObjectID: [PropertyValue]] {
        var byID: [ManagedObjectID: [PropertyValue]] = [:]
        byID.reserveCapacity(values.count)
        for (id, row) in zip(ids, values) {
            if let row { byID[id] = row }
        }
        if !batches.isEmpty {
            // The stored rows: the batches hold the transient defaults the objects start with.
            for (position, id) in ids.enumerated() {
                let (batch, row) = batchRow(at: position)
                byID[id] = RowTable.persistent(batch.row(row), of: id.entity)
            }
        }
        return byID
    }
}
