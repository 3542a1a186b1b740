import Foundation
import OrderedCollections

/// An object of the graph: one record of an entity, registered in one context.
///
/// Subclass it for typed properties (see ``AttributeKey``), or use it directly with
/// key-value coding:
///
/// ```swift
/// let employee = try context.insertObject(forEntityName: "Employee")
/// try employee.setValue("Ada", forKey: "firstName")
/// print(try employee.value(forKey: "firstName"))   // "Ada"
/// ```
///
/// An object is not `Sendable`: it belongs to its context's isolation domain. Pass its
/// ``objectID`` to other contexts instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity. Never fires a fault.
    public let entity: EntityDescription
    /// The object's identity. Temporary until the first save. Never fires a fault.
    public internal(set) var objectID: ManagedObjectID
    /// The context the object is registered in (nil once reset or removed).
    public internal(set) weak var context: ManagedObjectContext?

    /// Current values by storage slot; empty while the object is a fault.
    var storage: [PropertyValue] = []
    /// Values at the last save or load, captured at the first change after it.
    var committedSnapshot: [PropertyValue]? {
        didSet { if committedSnapshot == nil { changedSlots = 0 } }
    }
    /// The slots changed since `committedSnapshot` was taken, one bit each (bit 63 stands
    /// for every slot from 63 on): `isUpdated` compares only these.
    var changedSlots: UInt64 = 0
    /// First old value per slot since the last `processPendingChanges()`.
    var flushOld = FirstValues()
    var state = ObjectState()

    /// Creates an object of `entity` and inserts it into `context` (Core Data's
    /// `init(entity:insertInto:)`); with a nil context the object is not registered.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.objectID = .temporary(for: entity)
        self.storage = entity.attributes.reduce(into: Array(repeating: PropertyValue.null, count: entity.slotCount)) {
            values, attribute in values[attribute.slot] = attribute.defaultValue
        }
        for relationship in entity.relationships where relationship.isToMany {
            storage[relationship.slot] = .objects([])
        }
        if let context { context.registerInserted(self) }
    }

    deinit {
        if !state.isInvalid { context?.forgetDeallocated(objectID, ObjectIdentifier(self)) }
    }

    /// Whether the object's values are not loaded yet. Never fires a fault.
    public var isFault: Bool { state.isFault }
    /// Whether the object was inserted since the last save. Never fires a fault.
    public var isInserted: Bool { state.isInserted }
    /// Whether the object was deleted since the last save. Never fires a fault.
    public var isDeleted: Bool { state.isDeleted }
    /// Whether the object has changes not yet saved. Never fires a fault.
    public var isUpdated: Bool {
        guard !state.isInserted, !state.isDeleted, let committed = committedSnapshot else { return false }
        var bits = changedSlots
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            bits &= bits - 1
            if slot >= storage.count || slot >= committed.count { break }
            if slot == 63 {
                if committed[63...] != storage[63...] { return true }
            } else if committed[slot] != storage[slot] {
                return true
            }
        }
        return false
    }
    /// Whether the object was inserted, updated or deleted since the last save.
    public var hasChanges: Bool { isInserted || isDeleted || isUpdated }
    /// Whether the object can no longer be used (its context was reset, or it was deleted
    /// and saved, or its insertion was rolled back).
    public var isInvalid: Bool { state.isInvalid }

    // MARK: Hashable — identity, never fires a fault

    /// Objects are equal only when they are the same instance (one object per record per
    /// context).
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `Entity <uri>` followed by the values when loaded; never fires a fault.
    open var description: String {
        let header = "\(entity.name) \(objectID)"
        if state.isFault { return header + " (fault)" }
        let values = zip(entity.slotNames, storage).map { "\($0)=\($1)" }.joined(separator: ", ")
        return header + " {\(values)}"
    }

    // MARK: Lifecycle hooks (override points)

    /// Called once when the object is first inserted into a context; set initial values here.
    open func awakeFromInsert() {}
    /// Called after the object's values are loaded from the store.
    open func awakeFromFetch() {}
    /// Called before the object is saved (inserted, updated or deleted).
    open func willSave() {}
    /// Called after the object was saved.
    open func didSave() {}
    /// Called when the object is about to be deleted, before delete rules apply.
    open func prepareForDeletion() {}
    /// Called before the object turns into a fault.
    open func willTurnIntoFault() {}
    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    /// Per-key custom validation, run after the model's constraints. Throw a
    /// ``StrataError`` (or any error) to reject; assign `value` to coerce.
    open func validateValue(_ value: inout PropertyValue, forKey key: String) throws {}
    /// Multi-key validation of an inserted object.
    open func validateForInsert() throws {}
    /// Multi-key validation of an updated object.
    open func validateForUpdate() throws {}
    /// Multi-key validation of a deleted object.
    open func validateForDelete() throws {}
}

/// The bookkeeping flags of one object.
struct ObjectState {
    var isFault = false
    var isInserted = false
    var isDeleted = false
    var isInvalid = false
    /// The record exists in the store (loaded or saved), so a delete must be saved.
    var existsInStore = false
    /// Deleted by an undo/redo/rollback application: delete rules were already logged.
    var deletedByApply = false
    /// Delete rules already ran for this deletion.
    var deleteRulesApplied = false
    /// Inserted (or re-inserted by an undo) since the last flush.
    var insertedSinceFlush = false
    /// Deleted since the last flush.
    var deletedSinceFlush = false
    /// An insert of this object is in the log (so a later delete must be logged too).
    var wasLogged = false
    /// Present in the context's changed-since-flush set.
    var inFlushSet = false
    /// Present in the context's changed-since-save set.
    var inDirtySet = false
}

extension ManagedObject {
    /// Changes a to-many slot's members in place. The set is moved out of storage first so
    /// that it is uniquely referenced: adding one member to a large relationship must not
    /// copy the whole set.
    func mutateMembers(slot: Int, _ body: (inout OrderedSet<ManagedObjectID>) -> Void) {
        guard case .objects(var members) = storage[slot] else { return }
        storage[slot] = .null
        body(&members)
        storage[slot] = .objects(members)
    }
}
