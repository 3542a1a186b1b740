import Foundation

extension ManagedObjectContext {
    /// Tells the observers of `@Entity` objects that their properties changed. Every route
    /// by which values change in a context — a flush of edits, undo and redo, a merge of
    /// another context's or process's save, a refresh — ends in ObjectsDidChange
    /// (docs/ARCHITECTURE.md, "One path for every change"), so this is the one hook.
    /// The notice names objects, not keys: each object's declared properties are all
    /// announced, which can wake an observer of an unchanged property (Observation allows
    /// that; it never misses one).
    func announceObservedChanges(_ changes: ObjectChanges) {
        for set in [changes.updated, changes.refreshed, changes.deleted, changes.invalidated] {
            for id in set {
                guard let object = registeredObject(for: id), object is any ObservableManagedObject else { continue }
                for announce in ObservedPropertyTable.announcers(for: type(of: object)) { announce(object) }
            }
        }
    }
}

/// Each `@Entity` class's change announcers, its own and its parents' properties', built
/// once per class.
enum ObservedPropertyTable {
    private static let table = Locked<[ObjectIdentifier: [@Sendable (ManagedObject) -> Void]]>([:])

    static func announcers(for type: ManagedObject.Type) -> [@Sendable (ManagedObject) -> Void] {
        if let known = table.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        var announcers: [@Sendable (ManagedObject) -> Void] = []
        var current: ManagedObject.Type? = type
        while let declaring = current, let declaration = declaring.entityDeclaration {
            announcers += declaration.properties.map(\.announceChange)
            current = declaration.parentClass
        }
        table.withLock { $0[ObjectIdentifier(type)] = announcers }
        return announcers
    }
}
