import Foundation
import OrderedCollections

/// One child save's changes, by ID and value, as its parent takes them in.
struct ChildPush {
    /// An object the child inserted: its values (relationships included).
    struct Insert {
        let id: ManagedObjectID
        let values: [PropertyValue]
    }
    /// An object the child changed: what it read from the parent and what it holds now.
    struct Update {
        let id: ManagedObjectID
        let committed: [PropertyValue]
        let current: [PropertyValue]
    }
    /// An object the child deleted, with the values it read.
    struct Delete {
        let id: ManagedObjectID
        let committed: [PropertyValue]
    }
    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    /// The child's newest undo action name: the parent's undo group is named after it.
    var actionName = ""
    var policy = MergePolicy.error
}

/// What the parent holds after taking a push in, for the records it touched: their values
/// now, or nil when the parent deletes them (or they are gone).
struct ChildPushOutcome {
    var values: [ManagedObjectID: [PropertyValue]?] = [:]
}

extension ManagedObjectContext {
    /// A child's save (after flushing and validating): pushes its changes into the parent,
    /// marks them saved here, posts DidSave, then takes in what the parent decided where
    /// the two disagreed (conflict resolution, inverses of objects the parent changed).
    func saveIntoParent() throws {
        guard let parent else { return }
        var push = ChildPush()
        push.actionName = undoManager?.undoActionName ?? ""
        push.policy = mergePolicy
        var changes = SaveChanges()
        for object in dirtySet.values {
            let id = object.objectID
            if object.state.isDeleted {
                guard object.state.existsInStore else { continue }
                push.deletes.append(.init(id: id, committed: object.committedSnapshot ?? object.storage.array))
                changes.deleted.insert(id)
            } else if object.state.isInserted {
                push.inserts.append(.init(id: id, values: object.storage.array))
                changes.inserted.insert(id)
            } else if object.isUpdated {
                push.updates.append(.init(id: id, committed: object.committedSnapshot ?? object.storage.array, current: object.storage.array))
                changes.updated.insert(id)
            }
        }
        let outcome = try parent.onQueue { try parent.takeInChildPush(push) }
        finishSave(assigned: StoreSaveResult(), changes: changes, generation: nil)
        parent.announceToChildren(changes, from: self)

        // Where the parent now holds other values than this child (a conflict resolved its
        // way, an inverse it maintained, a record it deletes), the child's objects are
        // refreshed or leave, as after a merge.
        var merged = SaveChanges()
        for (id, values) in outcome.values {
            guard let object = registeredObject(for: id), !object.state.isFault else { continue }
            if let values {
                if !Self.samePersistentValues(object.storage.array, values, of: object.entity) { merged.updated.insert(id) }
            } else {
                merged.deleted.insert(id)
            }
        }
        if !merged.isEmpty { mergeChanges(fromContextDidSave: merged) }
    }
}
