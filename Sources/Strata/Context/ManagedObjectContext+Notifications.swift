import Foundation

/// The objects a flush changed, by ID (the Sendable payload of ObjectsDidChange).
public struct ObjectChanges: Sendable, Hashable {
    /// Objects inserted.
    public var inserted: Set<ManagedObjectID> = []
    /// Objects whose values changed.
    public var updated: Set<ManagedObjectID> = []
    /// Objects deleted.
    public var deleted: Set<ManagedObjectID> = []
    /// Objects refreshed from the store.
    public var refreshed: Set<ManagedObjectID> = []
    /// Objects invalidated.
    public var invalidated: Set<ManagedObjectID> = []

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty
    }
}

/// The records a save inserted, updated and deleted, by permanent ID (the Sendable payload
/// of DidSave, and what ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(SaveChanges)`` takes).
public struct SaveChanges: Sendable, Hashable {
    /// Records inserted.
    public var inserted: Set<ManagedObjectID> = []
    /// Records updated.
    public var updated: Set<ManagedObjectID> = []
    /// Records deleted.
    public var deleted: Set<ManagedObjectID> = []

    /// Creates a change set.
    public init(inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether nothing was saved.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ManagedObjectContext {
    /// Posted after each flush that changed something (object: the context; userInfo keys
    /// ``insertedObjectsKey``, ``updatedObjectsKey``, ``deletedObjectsKey`` hold
    /// `Set<ManagedObjectID>`; as in Core Data, a key is present only when its set is not
    /// empty).
    public static let objectsDidChangeNotification = Notification.Name("StrataManagedObjectContextObjectsDidChange")
    /// Posted after a successful save (same userInfo keys, permanent IDs).
    public static let didSaveNotification = Notification.Name("StrataManagedObjectContextDidSave")
    /// userInfo key of inserted object IDs.
    public static let insertedObjectsKey = "inserted"
    /// userInfo key of updated object IDs.
    public static let updatedObjectsKey = "updated"
    /// userInfo key of deleted object IDs.
    public static let deletedObjectsKey = "deleted"
    /// userInfo key (ObjectsDidChange) of object IDs refreshed from the store.
    public static let refreshedObjectsKey = "refreshed"
    /// userInfo key (ObjectsDidChange) of object IDs invalidated.
    public static let invalidatedObjectsKey = "invalidated"

    /// An asynchronous sequence of every flush's changes, from now on.
    ///
    /// ```swift
    /// for await changes in context.objectsDidChange() { print(changes.updated) }
    /// ```
    public func objectsDidChange() -> AsyncStream<ObjectChanges> {
        let (stream, continuation) = AsyncStream<ObjectChanges>.makeStream()
        changeObservers[UUID()] = continuation
        return stream
    }

    /// An asynchronous sequence of every successful save's changes, from now on.
    public func didSave() -> AsyncStream<SaveChanges> {
        let (stream, continuation) = AsyncStream<SaveChanges>.makeStream()
        saveObservers[UUID()] = continuation
        return stream
    }

    func postObjectsDidChange(_ changes: ObjectChanges) {
        if deferredChangeNotices != nil {
            deferredChangeNotices?.append(changes)
            return
        }
        if model.hasObservableClasses.withLock({ $0 }) { announceObservedChanges(changes) }
        // As Core Data: a key only when its set is not empty (a flush after edits carries
        // one set, not five).
        var userInfo: [AnyHashable: Any] = [:]
        if !changes.inserted.isEmpty { userInfo[Self.insertedObjectsKey] = changes.inserted }
        if !changes.updated.isEmpty { userInfo[Self.updatedObjectsKey] = changes.updated }
        if !changes.deleted.isEmpty { userInfo[Self.deletedObjectsKey] = changes.deleted }
        if !changes.refreshed.isEmpty { userInfo[Self.refreshedObjectsKey] = changes.refreshed }
        if !changes.invalidated.isEmpty { userInfo[Self.invalidatedObjectsKey] = changes.invalidated }
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: userInfo)
        for (key, continuation) in changeObservers {
            if case .terminated = continuation.yield(changes) { changeObservers[key] = nil }
        }
    }

    func postDidSave(_ changes: SaveChanges) {
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: [
            Self.insertedObjectsKey: changes.inserted, Self.updatedObjectsKey: changes.updated,
            Self.deletedObjectsKey: changes.deleted,
        ])
        for (key, continuation) in saveObservers {
            if case .terminated = continuation.yield(changes) { saveObservers[key] = nil }
        }
    }
}
