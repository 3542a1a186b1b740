import OrderedCollections
import Foundation

/// One property's change inside an ``ChangeOperation/update(_:changes:)``.
public struct SlotChange: Hashable, Sendable {
    /// The property's storage slot in the object's entity.
    public var slot: Int
    /// The value before the change.
    public var old: PropertyValue
    /// The value after the change.
    public var new: PropertyValue

    /// Creates a change.
    public init(slot: Int, old: PropertyValue, new: PropertyValue) {
        self.slot = slot
        self.old = old
        self.new = new
    }
}

/// One coalesced change to one object, carrying old and new values so that it can be
/// inverted without looking anything up. Operations hold IDs and values, never objects.
public enum ChangeOperation: Hashable, Sendable {
    /// An object came into existence with these values (one per slot, in slot order).
    case insert(ManagedObjectID, values: [PropertyValue])
    /// An object was deleted; `values` are its values at the delete (one per slot).
    case delete(ManagedObjectID, values: [PropertyValue])
    /// Attributes, to-ones or ordered to-manys changed.
    case update(ManagedObjectID, changes: SlotChanges)
    /// Members were added to and removed from an unordered to-many.
    case relate(ManagedObjectID, slot: Int, added: [ManagedObjectID], removed: [ManagedObjectID])
    /// A text attribute was edited: characters inserted and deleted (docs/TEXT.md).
    case splice(ManagedObjectID, slot: Int, edit: TextEdit)

    /// The object the operation changes.
    public var objectID: ManagedObjectID {
        switch self {
        case .insert(let id, _), .delete(let id, _), .update(let id, _), .relate(let id, _, _, _), .splice(let id, _, _): return id
        }
    }

    /// The operation that undoes this one.
    public var inverse: ChangeOperation {
        switch self {
        case .insert(let id, let values): return .delete(id, values: values)
        case .delete(let id, let values): return .insert(id, values: values)
        case .update(let id, let changes):
            return .update(id, changes: changes.inverse)
        case .relate(let id, let slot, let added, let removed):
            return .relate(id, slot: slot, added: removed, removed: added)
        case .splice(let id, let slot, let edit):
            return .splice(id, slot: slot, edit: edit.inverse)
        }
    }

    /// Calls `body` with every object ID the operation mentions (its object, and the IDs in
    /// its values), without building anything.
    public func forEachID(_ body: (ManagedObjectID) -> Void) {
        func visit(_ value: PropertyValue) {
            switch value {
            case .object(let id): body(id)
            case .objects(let ids): ids.forEach(body)
            default: break
            }
        }
        switch self {
        case .insert(let id, let values), .delete(let id, let values):
            body(id)
            values.forEach(visit)
        case .update(let id, let changes):
            body(id)
            for change in changes {
                visit(change.old)
                visit(change.new)
            }
        case .relate(let id, _, let added, let removed):
            body(id)
            added.forEach(body)
            removed.forEach(body)
        case .splice(let id, _, _):
            body(id)
        }
    }

    /// The same operation with every object ID passed through `transform` (used when a save
    /// replaces temporary IDs with permanent ones).
    public func mapIDs(_ transform: (ManagedObjectID) -> ManagedObjectID) -> ChangeOperation {
        func mapValue(_ value: PropertyValue) -> PropertyValue {
            switch value {
            case .object(let id): return .object(transform(id))
            case .objects(let ids): return .objects(OrderedSet(ids.map(transform)))
            default: return value
            }
        }
        // A row whose IDs all stay keeps its buffer: a batch insert's rows (no relationships,
        // or to records saved before) were copied here once more per row while a chunk was
        // saved, the largest thing at `strata import`'s peak.
        func mapRow(_ values: [PropertyValue]) -> [PropertyValue] {
            var result = values
            for (index, value) in values.enumerated() {
                switch value {
                case .object(let id) where transform(id) != id:
                    result[index] = mapValue(value)
                case .objects(let ids) where ids.contains(where: { transform($0) != $0 }):
                    result[index] = mapValue(value)
                default:
                    continue
                }
            }
            return result
        }
        switch self {
        case .insert(let id, let values): return .insert(transform(id), values: mapRow(values))
        case .delete(let id, let values): return .delete(transform(id), values: mapRow(values))
        case .update(let id, let changes):
            return .update(transform(id), changes: changes.mapValues(mapValue))
        case .relate(let id, let slot, let added, let removed):
            return .relate(transform(id), slot: slot, added: added.map(transform), removed: removed.map(transform))
        case .splice(let id, let slot, let edit):
            return .splice(transform(id), slot: slot, edit: edit)
        }
    }
}

/// The operations of one `processPendingChanges()`: one entry in the operation log.
public struct ChangeBatch: Hashable, Sendable {
    /// The batch's sequence number in its log, starting at 1.
    public var sequence: UInt64
    /// The coalesced operations, in the order they were made.
    public var operations: [ChangeOperation]
    /// Whether undo registration was enabled when the batch was flushed.
    public var isUndoable: Bool
    /// The kind of change the batch records.
    public var kind: ChangeGroupKind
    /// The top-level undo group the batch belongs to.
    public var groupID: UInt64

    /// Creates a batch.
    public init(sequence: UInt64, operations: [ChangeOperation], isUndoable: Bool, kind: ChangeGroupKind, groupID: UInt64) {
        self.sequence = sequence
        self.operations = operations
        self.isUndoable = isUndoable
        self.kind = kind
        self.groupID = groupID
    }
}
