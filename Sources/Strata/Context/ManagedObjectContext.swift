import Foundation
import Synchronization
import OrderedCollections

/// A scratch pad of objects over a coordinator's stores: it registers objects (one per
/// record), tracks their changes, logs them, undoes them, and saves them.
///
/// A context is not thread-safe. A ``ConcurrencyType/confinement`` context (the default)
/// belongs to the thread or task that uses it; a ``ConcurrencyType/privateQueue`` or
/// ``ConcurrencyType/mainQueue`` context owns a queue, and is used only inside
/// `perform` and ``performAndWait(_:)``, which any thread or task may call: that
/// is why the type is `Sendable`. Its objects are not: object IDs cross between contexts.
///
/// ```swift
/// let context = ManagedObjectContext(coordinator: coordinator)
/// let department = try context.insertObject(forEntityName: "Department")
/// try department.setValue("Research", forKey: "name")
/// try context.save()
/// ```
public final class ManagedObjectContext: @unchecked Sendable {
    /// The coordinator the context reads from and saves to; for a child context, its
    /// root's (a child reads and saves through ``parent`` instead).
    public let coordinator: PersistentStoreCoordinator
    /// The context a child context reads through and saves into (Core Data's `parent`),
    /// set at creation with ``init(parent:concurrencyType:undoManager:)``; nil for a
    /// context over the coordinator.
    public let parent: ManagedObjectContext?
    /// The model.
    public var model: ManagedObjectModel { coordinator.model }
    /// The undo manager; nil turns undo (and its memory cost) off.
    public var undoManager: ContextUndoManager? {
        didSet {
            if oldValue?.context === self { oldValue?.context = nil }
            undoManager?.context = self
        }
    }
    /// Keep every registered object alive, not only the changed ones (default `false`).
    public var retainsRegisteredObjects = false {
        didSet { retainAll = retainsRegisteredObjects ? registeredObjects : [] }
    }
    /// How a save resolves conflicts with changes saved since the context read its objects
    /// (by another context, a batch request or another process). Default ``MergePolicy/error``.
    public var mergePolicy: MergePolicy = .error
    /// How old a row in the coordinator's row cache may be for this context to use it when
    /// it fires a fault or refreshes an object (seconds), as Core Data's: negative (the
    /// default) reuses cached rows of any age, zero always reads the store, a positive
    /// interval reuses rows read less than that long ago. Changes saved through the same
    /// coordinator are always seen; the interval is about changes it has not seen (another
    /// coordinator's or process's, not yet merged). See docs/SEMANTICS.md §5.
    public var stalenessInterval: TimeInterval = -1
    /// Who the context's saves are by ("Importer", a user's name), recorded in each saved
    /// segment and read back as ``PersistentHistoryTransaction/author``; nil records none.
    /// As Core Data's `transactionAuthor`. See docs/SEMANTICS.md, "Persistent history".
    public var transactionAuthor: String?
    /// The context's name, recorded in each saved segment and read back as
    /// ``PersistentHistoryTransaction/contextName``; nil records none.
    public var name: String?

    /// The log of flushed changes.
    let log = OperationLog()
    // The three below are touched on every change. A context is confined to one isolation
    // domain, so their dynamic exclusivity checks buy nothing (as for ManagedObject's).
    /// Registered objects by ID; unchanged ones weakly held.
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// Objects changed since the last flush, in order of first change.
    @exclusivity(unchecked) var flushSet = FlushList()
    /// Objects changed since the last save: strongly held until save, rollback or reset.
    @exclusivity(unchecked) var dirtySet = DirtyList()
    var retainAll: [ManagedObject] = []
    /// The group kind the next flush records when it is an undo, redo or merge.
    var pendingFlushKind: ChangeGroupKind?
    #if STRATA_INVARIANTS
    /// Whether a refresh kept pending changes on top of newer stored values since the last
    /// save: the save's graph check is then skipped (see `checkGraphInvariants(of:)`).
    var mergedOverPendingChanges = false
    #endif
    /// Whether undo and redo of a batch of updates take the one-pass path
    /// (``replayInverseOfUpdates(_:)``); tests turn it off to compare with the general path.
    var replaysUpdatesDirectly = true
    /// How many undos and redos took the one-pass path (for tests).
    var directUpdateReplays = 0
    /// How many `perform`/`performAndWait` blocks are running (the event ends at 0).
    var eventDepth = 0
    /// Whether the end of the current main-queue turn is scheduled.
    var turnEndScheduled = false
    /// A main-queue context: its turns on the main queue are events.
    let endsMainTurns: Bool
    var changeObservers: [UUID: AsyncStream<ObjectChanges>.Continuation] = [:]
    /// While a save holds the coordinator's lock: the ObjectsDidChange notices to post
    /// once it is released (observers may save).
    var deferredChangeNotices: [ObjectChanges]?
    var saveObservers: [UUID: AsyncStream<SaveChanges>.Continuation] = [:]
    /// Fetched results controllers, told about each merged save once it is merged
    /// (ObjectsDidChange names only the registered objects a merge touched).
    var resultObservers: [UUID: (SaveChanges) -> Void] = [:]
    /// Fetched results controllers of a child context, told which objects took the
    /// permanent IDs an ancestor's save gave them (a child posts no DidSave for that).
    var permanentIDObservers: [UUID: (Set<ManagedObjectID>) -> Void] = [:]
    var fetchedPropertyCache: [ObjectIdentifier: [String: [ManagedObject]]] = [:]
    /// The destinations the last prefetching fetch loaded, kept alive (the registry holds
    /// objects weakly) until the next prefetching fetch or `reset()`.
    var prefetchedObjects: [ManagedObject] = []
    /// The batches the faults of fetches with ``FetchRequest/fetchBatchSize`` belong to, by
    /// ID: touching one fills its batch with one read (``FaultBatch``). Only objects flagged
    /// `inFaultBatch` are looked up.
    var faultBatches: [ManagedObjectID: FaultBatch] = [:]

    /// How the context is tied to threads.
    public let concurrencyType: ConcurrencyType
    /// The queue of a private-queue or main-queue context.
    let workQueue: DispatchQueue?
    /// Marks the private queue as this context's, so that nested calls run at once.
    let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Other contexts' saves waiting for a confinement context that merges automatically.
    /// With the tag of a store whose every record may have changed (``StoreRemoteChange/mayHaveChangedEverything``).
    let mailbox = Locked<[(changes: SaveChanges, refreshingAllOfStore: UInt32?)]>([])
    /// Permanent IDs an ancestor's save gave to records this child knows by temporary ID,
    /// waiting for the child's next operation (``enter()``).
    let permanentIDMail = Locked<[[ManagedObjectID: ManagedObjectID]]>([])
    let hasMail = Atomic<Bool>(false)
    /// The child contexts made over this one (held weakly), told of permanent IDs.
    let children = Locked<[WeakContext]>([])
    /// The query generation the context's reads are pinned to
    /// (``setQueryGenerationFrom(_:)``); nil when they follow the document.
    var pinnedGeneration: PinnedQueryGeneration?
    /// The texts edited here, by object and slot, with their characters' identities
    /// (docs/TEXT.md; `ManagedObjectContext+Text.swift`).
    var texts: [TextKey: ContextText] = [:]
    /// The restorations of texts forgotten (refreshed) here, for their next load: this
    /// context's undo still names the characters they put back.
    var keptTextRestorations: [TextKey: TextSequence.Restorations] = [:]
    /// The restores of a restored undo history, to read at the next load of a text
    /// (`LoggedTextRestorations.swift`); nil once read or when there is none.
    var loggedTextRestorations: (() throws -> [TextKey: TextSequence.Restorations])?
    /// The texts whose splices a flush logged since the log was last empty: only their
    /// loads look for unsaved splices in the log (`applyUnsavedSplices`).
    var textsWithLoggedSplices = Set<TextKey>()
    /// What non-throwing typed accessors could not do since the last save
    /// (`ManagedObjectContext+TypedAccessErrors.swift`).
    var pendingTypedAccessErrors: [StrataError] = []
    /// The peer this context's text edits are made as: random, never the base peer.
    let textPeer: UInt64 = UInt64.random(in: 1...UInt64.max)

    /// Creates a context over a coordinator, with an undo manager.
    ///
    /// - Parameters:
    ///   - coordinator: The coordinator whose stores the context reads and saves to.
    ///   - concurrencyType: ``ConcurrencyType/confinement`` (the default) to use it
    ///     directly from one thread or task; ``ConcurrencyType/privateQueue`` for a
    ///     background context used through `perform`.
    ///   - undoManager: The context's undo manager; nil turns undo off and keeps no undo
    ///     history.
    public convenience init(coordinator: PersistentStoreCoordinator, concurrencyType: ConcurrencyType = .confinement,
                            undoManager: ContextUndoManager? = ContextUndoManager()) {
        self.init(coordinator: coordinator, parent: nil, concurrencyType: concurrencyType, undoManager: undoManager)
    }

    init(coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext?, concurrencyType: ConcurrencyType,
         undoManager: ContextUndoManager?) {
        self.coordinator = coordinator
        self.parent = parent
        self.concurrencyType = concurrencyType
        self.workQueue = Self.makeWorkQueue(concurrencyType)
        self.endsMainTurns = concurrencyType == .mainQueue
        self.undoManager = undoManager
        undoManager?.context = self
        if concurrencyType == .privateQueue { workQueue?.setSpecific(key: queueKey, value: ObjectIdentifier(self)) }
    }

    deinit {
        // Objects hold their context unowned: clear it on every object that may outlive
        // this context (the app may still hold them).
        for entry in registry.values {
            guard let object = entry.object else { continue }
            object.context = nil
            object.state.contextReleased = true
        }
        if undoManager?.context === self { undoManager?.context = nil }
    }

    // MARK: Registration

    /// Every object registered in the context.
    public var registeredObjects: [ManagedObject] {
        registry.values.compactMap(\.object)
    }

    /// The registered object with this ID, or nil; never loads anything.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        guard let object = registry[objectID]?.object, !object.state.isInvalid else { return nil }
        return object
    }

    /// The object for an ID: the registered one, or a new fault (the record is not checked).
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        if let object = registeredObject(for: objectID) { return object }
        let object = makeInstance(for: objectID.entity, id: objectID)
        object.state.isFault = true
        object.state.existsInStore = true
        register(object)
        return object
    }

    /// The object for an ID, loaded, or an error when the record does not exist.
    /// - Throws: `.objectNotFound`.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        if let object = registeredObject(for: objectID), !object.state.isFault { return object }
        let object = self.object(with: objectID)
        try fireFault(object)
        return object
    }

    func makeInstance(for entity: EntityDescription, id: ManagedObjectID) -> ManagedObject {
        let type = model.objectClass(forEntity: entity)
        let object = type.init(entity: entity, insertInto: nil)
        object.objectID = id
        object.storage = []
        return object
    }

    func register(_ object: ManagedObject) {
        object.context = self
        registry[object.objectID] = WeakObject(object)
        if retainsRegisteredObjects { retainAll.append(object) }
    }

    func unregister(_ object: ManagedObject) {
        if registry[object.objectID]?.identifier == ObjectIdentifier(object) { registry[object.objectID] = nil }
        dirtySet.remove(object)
        flushSet[ObjectIdentifier(object)] = nil
        object.state.isInvalid = true
        object.context = nil
    }

    /// Called by a deallocating object: its entry must go before the memory is reused.
    func forgetDeallocated(_ objectID: ManagedObjectID, _ identifier: ObjectIdentifier) {
        guard registry[objectID]?.identifier == identifier else { return }
        registry[objectID] = nil
        if !faultBatches.isEmpty { faultBatches[objectID] = nil }
    }

    // MARK: Insert and delete

    /// Inserts a new object of the named entity.
    /// - Throws: `.unknownKey` for an unknown entity, `.abstractEntity` for an abstract one.
    @discardableResult
    public func insertObject(forEntityName name: String) throws -> ManagedObject {
        try insertObject(of: try model.entity(named: name))
    }

    /// Inserts a new object of an entity.
    /// - Throws: `.abstractEntity` when the entity is abstract; `.undo` when the undo manager
    ///   has ``ContextUndoManager/groupsByEvent`` off and no group open (docs/SEMANTICS.md §4).
    @discardableResult
    public func insertObject(of entity: EntityDescription) throws -> ManagedObject {
        enter()
        guard !entity.isAbstract else {
            throw StrataError(.abstractEntity, "Entity '\(entity.name)' is abstract and cannot be inserted.",
                              context: .init { $0.entity = entity.name })
        }
        try checkChangeCanRegisterUndo()
        let type = model.objectClass(forEntity: entity)
        return type.init(entity: entity, insertInto: self)
    }

    /// Inserts a new object of a registered subclass.
    ///
    /// ```swift
    /// let employee = try context.insert(Employee.self)
    /// ```
    public func insert<T: ManagedObject>(_ type: T.Type) throws -> T {
        guard let name = model.entityName(for: type) else {
            throw StrataError(.unknownKey, "\(T.self) is not registered for an entity of the model.")
        }
        guard let object = try insertObject(forEntityName: name) as? T else {
            throw StrataError(.typeMismatch, "Entity \(input: name) is registered with another class than \(T.self).")
        }
        return object
    }

    /// Inserts an object created with `init(entity:insertInto: nil)`.
    /// - Throws: `.abstractEntity` for an abstract entity; `.undo` as
    ///   ``insertObject(of:)``.
    public func insert(_ object: ManagedObject) throws {
        guard object.context == nil, !object.state.isInvalid else { return }
        guard !object.entity.isAbstract else {
            throw StrataError(.abstractEntity, "Entity '\(object.entity.name)' is abstract and cannot be inserted.")
        }
        try checkChangeCanRegisterUndo()
        registerInserted(object)
    }

    func registerInserted(_ object: ManagedObject) {
        object.state.isInserted = true
        object.state.insertedSinceFlush = true
        register(object)
        noteChanged(object)
        object.awakeFromInsert()
    }

    /// Marks an object deleted; delete rules run at the next `processPendingChanges()`.
    public func delete(_ object: ManagedObject) {
        enter()
        guard object.context === self, !object.state.isDeleted, !object.state.isInvalid else { return }
        if object.state.isFault { try? fireFault(object) }
        object.prepareForDeletion()
        object.state.isDeleted = true
        object.state.deletedSinceFlush = true
        object.state.deleteRulesApplied = false
        object.state.deletedByApply = false
        noteChanged(object)
    }

    // MARK: Change sets

    /// Whether anything changed since the last save (flushed or not).
    public var hasChanges: Bool {
        dirtySet.values.contains { $0.hasChanges || $0.state.insertedSinceFlush }
    }

    /// Objects inserted since the last save and not deleted.
    public var insertedObjects: Set<ManagedObject> {
        Set(dirtySet.values.filter { $0.state.isInserted && !$0.state.isDeleted })
    }

    /// Objects with changed values since the last save.
    public var updatedObjects: Set<ManagedObject> {
        Set(dirtySet.values.filter(\.isUpdated))
    }

    /// Objects deleted since the last save that exist in the store.
    public var deletedObjects: Set<ManagedObject> {
        Set(dirtySet.values.filter { $0.state.isDeleted && $0.state.existsInStore })
    }
}

/// A weak reference to a child context (contexts are few; no hot path reads it).
struct WeakContext: Sendable {
    weak var context: ManagedObjectContext?
}

/// A non-retaining reference to an object in the registry.
///
/// Not a `weak` reference: weak references move every object's reference count to a side
/// table, which made each retain and release several times slower. Instead an object
/// removes its own entry when it is deallocated (``ManagedObject`` `deinit`).
///
/// One word: the identity is read from the address, not stored beside it (a second word
/// was 8 MiB of a million-object context's registry).
struct WeakObject {
    private let reference: Unmanaged<ManagedObject>
    init(_ object: ManagedObject) {
        reference = .passUnretained(object)
    }
    /// The object's identity, from its address alone: valid to compare after the object
    /// is gone (it does not touch the object).
    var identifier: ObjectIdentifier { unsafeBitCast(reference.toOpaque(), to: ObjectIdentifier.self) }
    var object: ManagedObject? { reference.takeUnretainedValue() }
}
