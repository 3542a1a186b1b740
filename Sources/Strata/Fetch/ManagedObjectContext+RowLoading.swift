import Foundation

/// The one path by which stored rows become objects' values: a fetch's results, a batch
/// of faults, prefetched destinations and a single fault all fill objects here, from rows
/// read in batches through the coordinator's row cache (docs/ARCHITECTURE.md, "Reads: one
/// pass from SQL to objects").
extension ManagedObjectContext {
    /// Makes a fault the object of `values` (the record's stored row) read at `generation`,
    /// and calls `awakeFromFetch()`.
    func fill(_ object: ManagedObject, with values: [PropertyValue], generation: UInt64) {
        object.storage = ObjectValues(Self.withTransientDefaults(values, of: object.entity))
        loaded(object, generation: generation)
    }

    /// Makes a fault the object of row `row` of `batch` (the record's stored row, its
    /// transient defaults in place) read at `generation`, and calls `awakeFromFetch()`.
    func fill(_ object: ManagedObject, batch: FetchedRowBatch, row: Int, generation: UInt64) {
        object.storage = ObjectValues(batch: batch, row: row)
        loaded(object, generation: generation)
    }

    /// What follows putting a fault's values in place.
    private func loaded(_ object: ManagedObject, generation: UInt64) {
        textsReadAgain(with: object)
        object.loadGeneration = generation
        object.state.isFault = false
        object.state.inFaultBatch = false
        object.state.existsInStore = true
        awakeFromFetchUntracked(object)
    }

    /// Loads the values of the faults among `objects` with one batched read per store
    /// (``sourceRows(for:readingStore:)``). Objects with pending changes are never faults,
    /// so nothing pending is overwritten.
    /// - Parameter readingStore: read every row from the store (a fetch's own loading),
    ///   rather than taking cached rows the staleness interval allows (firing faults).
    func loadFaults(_ objects: [ManagedObject], readingStore: Bool) throws {
        // A child's faults may be objects its parent inserted (temporary IDs).
        let faults = objects.filter { $0.state.isFault && !$0.state.isInvalid && (parent != nil || !$0.objectID.isTemporaryID) }
        guard !faults.isEmpty else { return }
        let rows = try sourceRows(for: faults.map(\.objectID), readingStore: readingStore)
        for (object, row) in zip(faults, rows) where object.state.isFault {
            guard let row else { continue }
            fill(object, with: row.values, generation: row.generation)
        }
    }

    /// Fills the batch `object` belongs to, when it is a fault left in one (``FaultBatch``):
    /// every member still a fault is loaded with one read. The batch is forgotten either
    /// way; a member whose record is gone stays a fault (firing it alone then reports it).
    func fireFaultBatch(of object: ManagedObject) throws {
        object.state.inFaultBatch = false
        guard let batch = faultBatches[object.objectID] else { return }
        var members: [ManagedObject] = []
        members.reserveCapacity(batch.ids.count)
        for id in batch.ids where faultBatches[id] === batch {
            faultBatches[id] = nil
            guard let member = registry[id]?.object, member.state.inFaultBatch || member === object else { continue }
            member.state.inFaultBatch = false
            if member.state.isFault { members.append(member) }
        }
        try loadFaults(members, readingStore: false)
    }

    /// Puts the faults among `objects` in batches of `size`, in order: touching one fills
    /// its batch (Core Data's `fetchBatchSize`).
    func batchFaults(_ objects: ArraySlice<ManagedObject>, size: Int) {
        guard size > 0 else { return }
        var start = objects.startIndex
        while start < objects.endIndex {
            let end = min(start + size, objects.endIndex)
            let faults = objects[start..<end].filter { $0.state.isFault && !$0.state.isInvalid && !$0.objectID.isTemporaryID }
            if faults.count > 1 {
                let batch = FaultBatch(ids: faults.map(\.objectID))
                for fault in faults {
                    fault.state.inFaultBatch = true
                    faultBatches[fault.objectID] = batch
                }
            }
            start = end
        }
    }

    // MARK: Reading rows

    /// Several records' rows and the generation to stamp each object with, in the order
    /// of `ids` (nil where a record does not exist): the parent's current values for a
    /// child; the pinned generation's; else the coordinator's row cache and stores, one
    /// batched read per store (``PersistentStoreCoordinator/values(for:stalenessInterval:)``).
    /// - Parameter readingStore: skip the row cache (still filling it).
    func sourceRows(for ids: [ManagedObjectID], readingStore: Bool = false) throws
        -> [(values: [PropertyValue], generation: UInt64)?]
    {
        if parent != nil {
            let generation = coordinator.generation
            return try sourceValues(for: ids).map { $0.map { ($0, generation) } }
        }
        let staleness = readingStore ? 0 : stalenessInterval
        guard let pinned = pinnedGeneration else {
            return try coordinator.values(for: ids, stalenessInterval: staleness)
        }
        // A pinned generation's rows are neither taken from the coordinator's row cache nor
        // put in it: the cache holds the document as it is now.
        var result = [(values: [PropertyValue], generation: UInt64)?](repeating: nil, count: ids.count)
        var byReader: [ObjectIdentifier: (reader: DocumentGeneration, positions: [Int])] = [:]
        var unpinned: [Int] = []
        for (position, id) in ids.enumerated() where !id.isTemporaryID {
            if let reader = pinnedReader(for: id.entity) {
                byReader[ObjectIdentifier(reader), default: (reader, [])].positions.append(position)
            } else {
                unpinned.append(position)
            }
        }
        for (_, group) in byReader {
            let rows = try group.reader.values(for: group.positions.map { ids[$0] })
            for (position, row) in zip(group.positions, rows) { result[position] = row.map { ($0, pinned.generation) } }
        }
        if !unpinned.isEmpty {
            let rows = try coordinator.values(for: unpinned.map { ids[$0] }, stalenessInterval: staleness)
            for (position, row) in zip(unpinned, rows) { result[position] = row }
        }
        return result
    }

    /// Several records' values as this context's source has them, in the order of `ids`:
    /// ``sourceValues(for:)-(ManagedObjectID)`` for each, read in one batch.
    func sourceValues(for ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        guard let parent else { return try storedValues(for: ids) }
        return try parent.onQueue {
            parent.processPendingChanges()
            return try parent.currentValues(for: ids)
        }
    }

    /// Several records' values as a child of this context sees them, in the order of
    /// `ids`: ``currentValues(for:)-(ManagedObjectID)`` for each, the ones not loaded here
    /// read from the source in one batch.
    func currentValues(for ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        var result = [[PropertyValue]?](repeating: nil, count: ids.count)
        var missing: [Int] = []
        for (position, id) in ids.enumerated() {
            if let object = registry[id]?.object {
                if object.state.isInvalid || object.state.isDeleted { continue }
                if !object.state.isFault {
                    result[position] = object.storage.array
                    continue
                }
            }
            missing.append(position)
        }
        guard !missing.isEmpty else { return result }
        let read = try sourceValues(for: missing.map { ids[$0] })
        for (position, row) in zip(missing, read) { result[position] = row }
        return result
    }

    /// Several records' stored values for a root context, in the order of `ids` (nil for
    /// temporary IDs): from the pinned generation, else one batched read per store, not
    /// through the row cache (as ``storedValues(for:)-(ManagedObjectID)``).
    func storedValues(for ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        var result = [[PropertyValue]?](repeating: nil, count: ids.count)
        typealias Reader = (identity: ObjectIdentifier, read: ([ManagedObjectID]) throws -> [[PropertyValue]?])
        var groups: [ObjectIdentifier: (read: ([ManagedObjectID]) throws -> [[PropertyValue]?], positions: [Int])] = [:]
        var readerByEntity: [Int: Reader] = [:]
        for (position, id) in ids.enumerated() where !id.isTemporaryID {
            let reader: Reader
            if let known = readerByEntity[id.entity.index] {
                reader = known
            } else if let pinned = pinnedReader(for: id.entity) {
                reader = (ObjectIdentifier(pinned), { try pinned.values(for: $0) })
            } else {
                let store = try coordinator.store(for: id.entity)
                reader = (ObjectIdentifier(store), { try store.values(for: $0) })
            }
            readerByEntity[id.entity.index] = reader
            groups[reader.identity, default: (reader.read, [])].positions.append(position)
        }
        for (_, group) in groups {
            let rows = try group.read(group.positions.map { ids[$0] })
            for (position, row) in zip(group.positions, rows) { result[position] = row }
        }
        return result
    }
}
