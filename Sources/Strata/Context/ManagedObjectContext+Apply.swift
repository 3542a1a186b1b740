import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Applies operations as recorded, without inverse maintenance or delete rules (the
    /// log already holds both ends of every change): inserts first, then updates, then
    /// deletes, so every object an update names exists.
    ///
    /// Used by undo, redo, rollback and merges. The changes are tracked like any others and
    /// form the next flush's batch.
    func apply(_ operations: [ChangeOperation]) throws {
        for case .insert(let id, let values) in operations { try applyInsert(id, values) }
        for operation in operations {
            switch operation {
            case .update(let id, let changes):
                let object = try loadedObject(id)
                for change in changes where change.slot < object.storage.count {
                    setPrimitive(object, slot: change.slot, change.new)
                }
            case .relate(let id, let slot, let added, let removed):
                let object = try loadedObject(id)
                guard slot < object.storage.count, case .objects = object.storage[slot] else { continue }
                willChange(object, slot: slot)
                object.mutateMembers(slot: slot) { $0.relate(adding: added, removing: removed) }
            case .splice(let id, let slot, let edit):
                try applyTextEdit(edit, to: try loadedObject(id), slot: slot)
            case .insert, .delete:
                continue
            }
        }
        for case .delete(let id, _) in operations { try applyDelete(id) }
    }

    private func loadedObject(_ id: ManagedObjectID) throws -> ManagedObject {
        let object = self.object(with: id)
        try materialize(object)
        return object
    }

    private func applyInsert(_ id: ManagedObjectID, _ values: [PropertyValue]) throws {
        if let object = registry[id]?.object, object.state.isDeleted {
            // Reviving a deleted object (an undo of its delete).
            object.state.isDeleted = false
            object.state.isInvalid = false
            object.context = self
            object.state.insertedSinceFlush = true
            object.state.deletedByApply = false
            for slot in values.indices where slot < object.storage.count && object.storage[slot] != values[slot] {
                object.noteCommittedValue(slot: slot)
            }
            object.storage = ObjectValues(values)
            noteChanged(object)
            return
        }
        let object = makeInstance(for: id.entity, id: id)
        object.storage = ObjectValues(values)
        object.state.isInserted = true
        object.state.insertedSinceFlush = true
        register(object)
        noteChanged(object)
    }

    private func applyDelete(_ id: ManagedObjectID) throws {
        let object = try loadedObject(id)
        guard !object.state.isDeleted else { return }
        object.state.isDeleted = true
        object.state.deletedSinceFlush = true
        object.state.deletedByApply = true
        object.state.deleteRulesApplied = true
        noteChanged(object)
    }

    /// Applies the inverse of batches, newest first, without building the inverse
    /// operations (an undo of a large group allocates nothing per operation).
    func applyInverse(of batches: [ChangeBatch], skippingTexts: Bool = false) throws {
        for batch in batches.reversed() {
            let operations = batch.operations
            // The inverse of a delete is an insert: those first.
            for case .delete(let id, let values) in operations.reversed() { try applyInsert(id, values) }
            for operation in operations.reversed() {
                switch operation {
                case .update(let id, let changes):
                    let object = try loadedObject(id)
                    for change in changes where change.slot < object.storage.count {
                        setPrimitive(object, slot: change.slot, change.old)
                    }
                case .relate(let id, let slot, let added, let removed):
                    let object = try loadedObject(id)
                    guard slot < object.storage.count, case .objects = object.storage[slot] else { continue }
                    willChange(object, slot: slot)
                    object.mutateMembers(slot: slot) { $0.relate(adding: removed, removing: added) }
                case .splice(let id, let slot, let edit):
                    guard !skippingTexts else { continue }
                    try applyTextEdit(edit.inverse, to: try loadedObject(id), slot: slot)
                case .insert, .delete:
                    continue
                }
            }
            for case .insert(let id, _) in operations.reversed() { try applyDelete(id) }
        }
    }
}
