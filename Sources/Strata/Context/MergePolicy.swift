import Foundation

/// How a save resolves conflicts: records the save changes or deletes that another context,
/// a batch request or another process changed since this context read them (optimistic
/// locking). Core Data's merge policies, by the same names.
///
/// ```swift
/// editor.mergePolicy = .mergeByPropertyObjectTrump
/// try editor.save()   // its own changes win; others' changes to other properties stay
/// ```
///
/// For each conflicting object, per persistent property, with *committed* the value the
/// context read, *object* its value now and *store* the record's value now:
///
/// | policy | attribute or to-one |
/// |---|---|
/// | ``error`` | the save throws `.mergeConflict` (``StrataStorage/StrataError/mergeConflicts``) and changes nothing |
/// | ``mergeByPropertyStoreTrump`` | store if the store changed it, else object |
/// | ``mergeByPropertyObjectTrump`` | object if the context changed it, else store |
/// | ``overwrite`` | object for attributes; to-ones as object trump |
/// | ``rollback`` | store: the object's changes are discarded |
///
/// To-many relationships always merge by membership: the context's additions and removals
/// apply to the store's members. A membership is also a value of the record at the other
/// end, so pushing or discarding a whole member list would contradict those records.
/// A delete on either side wins under every policy but ``error``: a record the store
/// deleted leaves the context as in ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(SaveChanges)``
/// (its pending changes are dropped), and a record the context deletes is deleted.
public enum MergePolicy: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Refuse the save (the default, as Core Data's `NSErrorMergePolicy`).
    case error
    /// Merge property by property; where both changed a property the store's value wins.
    case mergeByPropertyStoreTrump
    /// Merge property by property; where the context changed a property its value wins.
    case mergeByPropertyObjectTrump
    /// Write every attribute as the object holds it, over any change in the store.
    case overwrite
    /// Discard the conflicting objects' changes; the store's values win.
    case rollback

    /// The policy's name, as written in code.
    public var description: String {
        switch self {
        case .error: "error"
        case .mergeByPropertyStoreTrump: "mergeByPropertyStoreTrump"
        case .mergeByPropertyObjectTrump: "mergeByPropertyObjectTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        }
    }
}

/// One record a refused save would have written over changes made since the context read
/// it (Core Data's `NSMergeConflict`). Found in ``StrataStorage/StrataError/mergeConflicts``.
///
/// Snapshots map persistent property names to values (to-many relationships as their
/// member IDs); transient properties are left out.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// The record.
    public let objectID: ManagedObjectID
    /// The object's values in the context now; nil when the context deletes it.
    public let objectSnapshot: [String: PropertyValue]?
    /// The values the context last read from (or saved to) the store.
    public let committedSnapshot: [String: PropertyValue]
    /// The record's values in the store now; nil when it was deleted there.
    public let persistedSnapshot: [String: PropertyValue]?

    /// Creates a conflict record.
    public init(objectID: ManagedObjectID, objectSnapshot: [String: PropertyValue]?,
                committedSnapshot: [String: PropertyValue], persistedSnapshot: [String: PropertyValue]?) {
        self.objectID = objectID
        self.objectSnapshot = objectSnapshot
        self.committedSnapshot = committedSnapshot
        self.persistedSnapshot = persistedSnapshot
    }

    /// The properties the store changed since the context read them, sorted (all of
    /// them when the record was deleted there).
    public var storeChangedKeys: [String] {
        guard let persistedSnapshot else { return committedSnapshot.keys.sorted() }
        return committedSnapshot.keys.filter { persistedSnapshot[$0] != committedSnapshot[$0] }.sorted()
    }

    /// `x-strata://…/Employee/p3: changed in the store (salary)`, or `…: deleted in the store`.
    public var description: String {
        let name = objectID.description
        guard persistedSnapshot != nil else { return "\(name): deleted in the store" }
        let what = objectSnapshot == nil ? "deleted here, changed in the store" : "changed in the store"
        return "\(name): \(what) (\(storeChangedKeys.joined(separator: ", ")))"
    }
}
