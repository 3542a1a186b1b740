/// A fetch of objects whose values a document store streams into shared batches of rows
/// (``FetchedRowBatch``): no list of every row exists beside the objects, and each clean
/// object reads its values from its batch until it changes one (docs/ARCHITECTURE.md,
/// "Objects' values: owned or a row of a fetched batch").
extension ManagedObjectContext {
    /// A row of an entity the batches are not for: the fetch reads the usual way instead.
    private struct OtherEntityRow: Error {}

    /// The matching records of `request` with their values in batches, when `source` can
    /// stream them (``FetchSource/streamRecords(_:_:)``); nil, having kept nothing, when it
    /// cannot.
    func streamedRecords(_ request: StoreFetchRequest, from source: FetchSource) throws -> MatchedRecords? {
        let entity = request.entity
        var ids: [ManagedObjectID] = []
        var batches: [FetchedRowBatch] = []
        let expected = request.fetchLimit > 0 ? request.fetchLimit : FetchedRowBatch.rowLimit
        var builder = FetchedRowBatchBuilder(slotCount: entity.slotCount, expected: expected)
        do {
            let streamed = try source.streamRecords(request) { id, values in
                guard id.entity === entity, values.count <= entity.slotCount else { throw OtherEntityRow() }
                if builder.isFull { batches.append(builder.finish()) }
                ids.append(id)
                builder.append(Self.withTransientDefaults(values, of: entity))
            }
            guard streamed else { return nil }
        } catch is OtherEntityRow {
            return nil
        }
        if !builder.isEmpty { batches.append(builder.finish()) }
        return MatchedRecords(ids: ids, batches: batches)
    }

    /// Fills the faults among `objects` (by position in `read`) from its batches, then
    /// hands the last ``RowCache/limit`` rows to the row cache, as a fetch's other loading
    /// does; `read`'s batches are let go (the objects hold them).
    func fillStreamed(_ objects: [ManagedObject], from read: inout MatchedRecords, generation: UInt64) {
        for (position, object) in objects.enumerated() where object.state.isFault && !object.state.isInvalid {
            let (batch, row) = read.batchRow(at: position)
            fill(object, batch: batch, row: row, generation: generation)
        }
        // Faults fired later find these rows as the staleness interval allows. A pinned
        // generation's rows stay out: the cache holds the document as it is now.
        if pinnedGeneration == nil {
            let streamed = read
            let recent = max(0, objects.count - RowCache.limit)..<objects.count
            coordinator.cacheFetchedRows(recent.lazy.map { position in
                let (batch, row) = streamed.batchRow(at: position)
                let id = objects[position].objectID
                return StoreRecord(objectID: id, values: RowTable.persistent(batch.row(row), of: id.entity))
            }, generation: generation)
        }
        read.batches = []
    }
}
