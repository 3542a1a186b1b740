/// A batch of faults a fetch with ``FetchRequest/fetchBatchSize`` returned: as in Core
/// Data, the first object of the batch that is touched fills the whole batch with one read
/// (``PersistentStore/values(for:)-([ManagedObjectID])``), instead of one read per object.
///
/// The context keeps each batch by its members' IDs (`ManagedObjectContext.faultBatches`)
/// until it fires; the objects are flagged `inFaultBatch` so that firing any other fault
/// looks nothing up.
final class FaultBatch {
    /// The members, in the fetch's order.
    let ids: [ManagedObjectID]

    init(ids: [ManagedObjectID]) {
        self.ids = ids
    }
}
