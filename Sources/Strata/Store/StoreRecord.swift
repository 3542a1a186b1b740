/// One record a store read: its ID and its persistent values by slot (transient slots
/// `.null`, to-many slots `.objects`), as ``PersistentStore/values(for:)-(ManagedObjectID)``
/// returns them.
///
/// What ``PersistentStore/fetchRecords(_:)`` returns, one per matching record:
///
/// ```swift
/// for record in try store.fetchRecords(StoreFetchRequest(entity: employee)) {
///     print(record.objectID, record.values[salarySlot])
/// }
/// ```
public struct StoreRecord: Sendable, Hashable {
    /// The record's ID.
    public var objectID: ManagedObjectID
    /// The record's persistent values, by slot.
    public var values: [PropertyValue]

    /// Creates a record.
    public init(objectID: ManagedObjectID, values: [PropertyValue]) {
        self.objectID = objectID
        self.values = values
    }
}
