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
    ///
    /// Read from the ID, which names it (a new ID for the object, at its save, names the
    /// same entity): not stored twice, 8 bytes of every object.
    public var entity: EntityDescription { objectID.entity }
    /// The object's identity. Temporary until the first save. Never fires a fault.
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID
    // The fields are in this order so that the instance is 72 bytes, one 80-byte malloc
    // chunk (docs/ARCHITECTURE.md, "One path for every change"): the flags' two bytes and
    // the fetched row's four share one word after the ID instead of taking words of their
    // own ("Objects' values: owned or a row of a fetched batch").
    /// The bookkeeping flags.
    @exclusivity(unchecked) var state = ObjectState()
    /// The object's row in the fetched batch its values are read from (``ObjectValues``):
    /// four bytes of the padding after the flags, so it costs the instance nothing.
    @exclusivity(unchecked) var fetchedRow: UInt32 = 0
    /// The context the object is registered in (nil once reset or removed).
    ///
    /// Not a weak reference: loading a weak reference goes through a side table on every
    /// change. The context clears this on every registered object when it is unregistered
    /// or deallocated (``ManagedObjectContext`` `deinit`), so it never dangles.
    @exclusivity(unchecked) public internal(set) unowned(unsafe) var context: ManagedObjectContext?

    // The bookkeeping below is touched on every change. `@exclusivity(unchecked)`: an
    // object belongs to one context's isolation domain and these are internal, so the
    // dynamic exclusivity check (a thread-local access set per access) buys nothing.

    /// Where the current values are (``ObjectValues``): the object's own list, or a
    /// fetched batch (its row in ``fetchedRow``). One word.
    @exclusivity(unchecked) var valueForm: ObjectValues.Form = .owned([])
    /// The committed and flush records of a changed object (`committedOld`, `flushOld`);
    /// nil while it has none, as most objects of a big context do.
    @exclusivity(unchecked) var changeRecords: ChangeRecords?
    /// The coordinator's change generation when the values were last read from (or saved
    /// to) the store: a save compares it with the record's last change to find conflicts.
    @exclusivity(unchecked) var loadGeneration: UInt64 = 0

    /// Current values by storage slot; empty while the object is a fault.
    var storage: ObjectValues {
        @inline(__always) get { ObjectValues(form: valueForm, row: fetchedRow) }
        @inline(__always) set {
            valueForm = newValue.form
            fetchedRow = newValue.row
        }
        _modify {
            // Taken out while changed, so that the object's own list is not copied.
            var values = ObjectValues(form: valueForm, row: fetchedRow)
            valueForm = .owned([])
            defer {
                valueForm = values.form
                fetchedRow = values.row
            }
            yield &values
        }
    }

    /// Creates an object of `entity` and inserts it into `context` (Core Data's
    /// `init(entity:insertInto:)`); with a nil context the object is not registered.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.objectID = .temporary(for: entity)
        if entity.initialValues.count == entity.slotCount {
            // Shared until the object changes a value (a fetched fault replaces them whole).
            self.valueForm = .owned(entity.initialValues)
        } else {
            var values = entity.attributes.reduce(into: Array(repeating: PropertyValue.null, count: entity.slotCount)) {
                values, attribute in values[attribute.slot] = attribute.defaultValue
            }
            for relationship in entity.relationships where relationship.isToMany {
                values[relationship.slot] = .objects([])
            }
            self.valueForm = .owned(values)
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
        guard !state.isInserted, !state.isDeleted else { return false }
        return changeRecords?.committedOld?.differs(from: storage) ?? false
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

    /// The class's typed keys, checked against the entity when the class is registered
    /// (``ManagedObjectModel/register(_:forEntityName:)``). Empty by default; a subclass
    /// lists its keys to have them checked.
    open class var typedKeys: [TypedKeyDescription] { [] }

    /// The entity the class declares with StrataModels' `@Entity` macro, which generates
    /// this; nil for other classes. ``ManagedObjectModel/init(types:versionIdentifier:)``
    /// builds a model from it.
    open class var entityDeclaration: EntityDeclaration? { nil }

    /// The name of the entity whose objects are instances of this class, as a typed
    /// ``FetchRequest`` names it when given no entity: the class's own name by default
    /// (Core Data's generated `fetchRequest()` convention). A class for an entity of
    /// another name overrides it.
    ///
    /// ```swift
    /// final class Employee: ManagedObject {
    ///     override class var entityName: String { "Person" }
    /// }
    /// ```
    open class var entityName: String { String(describing: self) }

    /// The model property a key path of this class reads, for `#Predicate`,
    /// `SortDescriptor` and batch requests given key paths (docs/PREDICATES.md, "Swift
    /// predicates"); nil (the default) for a key path the class does not map.
    ///
    /// Swift cannot tell the name of a computed property from its key path, so a class
    /// whose key paths are used so lists them. The table is built for the class the key
    /// path starts from (`Self`), so that a subclass's `\Manager.salary` finds the
    /// `salary` its superclass declares:
    ///
    /// ```swift
    /// override class func propertyName(for keyPath: AnyKeyPath) -> String? {
    ///     func names<Root: Employee>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
    ///         [\.salary: "salary", \.department: "department"]
    ///     }
    ///     return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
    /// }
    /// ```
    open class func propertyName(for keyPath: AnyKeyPath) -> String? { nil }

    /// The key paths ``propertyName(for:)`` maps, rooted at `Self`, with their model
    /// properties' names: with ``optionalPropertyKeyPaths()``, what lets a `SortDescriptor`
    /// through a to-one (`SortDescriptor(\Employee.department?.name)`) be translated, since
    /// Swift cannot split a key path into its parts (docs/PREDICATES.md §1b). `@Entity`
    /// writes it; the default lists none.
    open class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] { [] }

    /// The same key paths from an optional of the class (`\Department?.?.name`): the parts
    /// after a to-one in a key path that runs through it. `@Entity` writes it; the default
    /// lists none.
    open class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] { [] }

    /// Per-key custom validation, run after the model's constraints. Throw a
    /// ``StrataStorage/StrataError`` (or any error) to reject; assign `value` to coerce.
    open func validateValue(_ value: inout PropertyValue, forKey key: String) throws {}
    /// Multi-key validation of an inserted object.
    open func validateForInsert() throws {}
    /// Multi-key validation of an updated object.
    open func validateForUpdate() throws {}
    /// Multi-key validation of a deleted object.
    open func validateForDelete() throws {}
}

/// The bookkeeping flags of one object, one bit each: two bytes, where twelve `Bool`s took
/// twelve (and, with alignment, 16 of every object).
struct ObjectState {
    private var bits: UInt16 = 0

    @inline(__always)
    private func bit(_ mask: UInt16) -> Bool { bits & mask != 0 }

    @inline(__always)
    private mutating func set(_ mask: UInt16, _ on: Bool) {
        if on { bits |= mask } else { bits &= ~mask }
    }

    var isFault: Bool { get { bit(1 << 0) } set { set(1 << 0, newValue) } }
    var isInserted: Bool { get { bit(1 << 1) } set { set(1 << 1, newValue) } }
    var isDeleted: Bool { get { bit(1 << 2) } set { set(1 << 2, newValue) } }
    var isInvalid: Bool { get { bit(1 << 3) } set { set(1 << 3, newValue) } }
    /// The record exists in the store (loaded or saved), so a delete must be saved.
    var existsInStore: Bool { get { bit(1 << 4) } set { set(1 << 4, newValue) } }
    /// Deleted by an undo/redo/rollback application: delete rules were already logged.
    var deletedByApply: Bool { get { bit(1 << 5) } set { set(1 << 5, newValue) } }
    /// Delete rules already ran for this deletion.
    var deleteRulesApplied: Bool { get { bit(1 << 6) } set { set(1 << 6, newValue) } }
    /// Inserted (or re-inserted by an undo) since the last flush.
    var insertedSinceFlush: Bool { get { bit(1 << 7) } set { set(1 << 7, newValue) } }
    /// Deleted since the last flush.
    var deletedSinceFlush: Bool { get { bit(1 << 8) } set { set(1 << 8, newValue) } }
    /// An insert of this object is in the log (so a later delete must be logged too).
    var wasLogged: Bool { get { bit(1 << 9) } set { set(1 << 9, newValue) } }
    /// Present in the context's changed-since-flush set.
    var inFlushSet: Bool { get { bit(1 << 10) } set { set(1 << 10, newValue) } }
    /// Present in the context's changed-since-save set.
    var inDirtySet: Bool { get { bit(1 << 11) } set { set(1 << 11, newValue) } }
    /// Has an entry in the context's changed-since-save list, in or departed (`DirtyList`).
    var inDirtyList: Bool { get { bit(1 << 12) } set { set(1 << 12, newValue) } }
    /// The context the object was registered in was released (its `deinit` ran).
    var contextReleased: Bool { get { bit(1 << 13) } set { set(1 << 13, newValue) } }
    /// A fault a fetch with ``FetchRequest/fetchBatchSize`` left in one of the context's
    /// fault batches (``FaultBatch``): firing it fills its whole batch.
    var inFaultBatch: Bool { get { bit(1 << 14) } set { set(1 << 14, newValue) } }
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

extension ManagedObject {
    /// Values at the last save or load (nil while nothing changed since): the current
    /// values with each changed slot's committed value put back. Assigning records the
    /// slots that differ from the current values.
    var committedSnapshot: [PropertyValue]? {
        get {
            guard let committedOld else { return nil }
            var values = storage.array
            for (slot, old) in committedOld where slot < values.count { values[slot] = old }
            return values
        }
        set {
            guard let newValue else {
                committedOld = nil
                return
            }
            var old = FirstValues()
            for slot in newValue.indices where slot < storage.count && newValue[slot] != storage[slot] {
                old[slot] = newValue[slot]
            }
            committedOld = old
        }
    }

    /// A slot's value at the last save or load.
    func committedValue(slot: Int) -> PropertyValue {
        committedOld?[slot] ?? storage[slot]
    }

    /// Records a slot's committed value before its current value changes (only the first
    /// change after a save or load records anything). Inserted objects have no committed
    /// values.
    @inline(__always)
    func noteCommittedValue(slot: Int) {
        guard !state.isInserted else { return }
        // In place through optional chaining (no copy of the entries); nil: not tracking yet.
        guard let records = changeRecords else {
            changeRecords = ChangeRecords(committedOld: FirstValues(slot: slot, value: storage[slot]))
            return
        }
        if records.committedOld?.recordFirst(slot, storage[slot]) == nil {
            records.committedOld = FirstValues(slot: slot, value: storage[slot])
        }
    }
}
