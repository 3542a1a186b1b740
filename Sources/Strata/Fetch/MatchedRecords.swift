/// What a context's fetch matched: the IDs in the fetch's order and, when the stores read
/// them in the same pass (``PersistentStore/fetchRecords(_:)``), the records' stored
/// values, which then fill the fetched objects with no further read.
struct MatchedRecords {
    /// The matching IDs, in order, within the window.
    var ids: [ManagedObjectID]
    /// The stored values by position in ``ids``; empty when the fetch read none, nil for a
    /// record whose values were not read with it (a pending object, loaded already).
    var values: [[PropertyValue]?] = []
    /// The rows the stores returned (for the coordinator's row cache).
    var read: [StoreRecord] = []

    init(ids: [ManagedObjectID]) {
        self.ids = ids
    }

    init(ids: [ManagedObjectID], values: [[PropertyValue]?], read: [StoreRecord]) {
        self.ids = ids
        self.values = values
        self.read = read
    }

    /// The records a store returned, with their values.
    init(records: [StoreRecord]) {
        ids = records.map(\.objectID)
        values = records.map(\.values)
        read = records
    }

    /// The values read, by ID (empty when none were).
    func valuesByID() -> [ManagedObjectID: [PropertyValue]] {
        var byID: [ManagedObjectID: [PropertyValue]] = [:]
        byID.reserveCapacity(read.count)
        for record in read { byID[record.objectID] = record.values }
        return byID
    }
}
