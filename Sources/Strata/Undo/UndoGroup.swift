import Foundation

/// One undo group: the batches, app-level actions and nested groups undone as a unit.
final class UndoGroup {
    enum Item {
        case batch(ChangeBatch)
        case group(UndoGroup)
        case action(UndoAction)
    }

    /// A batch or an action, nested groups flattened (what an undo walks, newest first).
    enum Leaf {
        case batch(ChangeBatch)
        case action(UndoAction)
    }

    /// Temporary until the save that writes the group gives it a permanent id.
    var id: UInt64
    /// The temporary id a save replaced (the log it cleared still named the group so).
    var formerID: UInt64?
    let kind: ChangeGroupKind
    var revertsGroup: UInt64?
    var actionName: String
    var items: [Item] = []
    /// Opened by a registration with `groupsByEvent` (not by `beginUndoGrouping`); the
    /// event's end closes it, and it is dropped when empty.
    var isImplicit = false
    /// Whether an app-level action is inside (then undo walks the items one by one).
    var hasActions = false
    /// The app's value for the group (a selection), handed back on undo and redo, and its
    /// encoding when it is persistent (``ContextUndoManager/setPersistentGroupMetadata(_:)``).
    var metadata: UndoGroupMetadata?
    /// When the group was closed (system uptime), for coalescing by time.
    var closedAt: TimeInterval = 0
    /// Set when a batch is added; cleared once a save replaced temporary IDs.
    var mayHoldTemporaryIDs = false
    /// The operations replaying this group logs, when known beforehand: a group recorded by
    /// the one-pass replay of one batch reverts that batch, so replaying it logs that batch's
    /// operations again (redo after undo, undo after redo), and they need not be rebuilt.
    var inverseOperations: [ChangeOperation]?
    /// Reads the group's operations back from a document's log, for a group that does not
    /// hold them: an undoable batch insert, whose rows (about 1 KB each as operations) would
    /// otherwise stay in memory as long as the group is on the stack. Cleared once read.
    var storedOperations: (() throws -> [ChangeOperation])?

    init(id: UInt64, kind: ChangeGroupKind, revertsGroup: UInt64? = nil, actionName: String = "") {
        self.id = id
        self.kind = kind
        self.revertsGroup = revertsGroup
        self.actionName = actionName
    }

    var info: ChangeGroupInfo {
        ChangeGroupInfo(id: id, kind: kind, revertsGroup: revertsGroup, actionName: actionName)
    }

    /// Nothing inside, not even an empty nested group (an explicit group, even empty, is
    /// an undo step, as in `NSUndoManager`).
    var isEmpty: Bool { items.isEmpty && storedOperations == nil }

    /// Reads the operations of a group that holds them in the log (``storedOperations``)
    /// into its items, as if it had held them all along.
    /// - Throws: the log's error (the group then stays as it was).
    func loadStoredOperations() throws {
        guard let read = storedOperations else { return }
        let operations = try read()
        items = [.batch(ChangeBatch(sequence: 0, operations: operations, isUndoable: true, kind: kind, groupID: id))]
        storedOperations = nil
    }

    /// Every batch, oldest first, nested groups flattened.
    var batches: [ChangeBatch] {
        items.flatMap { item -> [ChangeBatch] in
            switch item {
            case .batch(let batch): return [batch]
            case .group(let group): return group.batches
            case .action: return []
            }
        }
    }

    /// How many batches ``batches`` has, counted without building it: typing coalesces
    /// each keystroke's group into the step's, which grows by a batch a keystroke.
    var batchCount: Int {
        items.reduce(0) { count, item in
            switch item {
            case .batch: return count + 1
            case .group(let group): return count + group.batchCount
            case .action: return count
            }
        }
    }

    /// Whether the group holds a batch (nested groups included): true at its first one,
    /// where ``batchCount`` walks every item — typing asks it of the step it coalesces into
    /// once a keystroke.
    var hasBatches: Bool {
        items.contains { item in
            switch item {
            case .batch: return true
            case .group(let group): return group.hasBatches
            case .action: return false
            }
        }
    }

    /// Every batch and action, oldest first, nested groups flattened.
    var leaves: [Leaf] {
        items.flatMap { item -> [Leaf] in
            switch item {
            case .batch(let batch): return [.batch(batch)]
            case .group(let group): return group.leaves
            case .action(let action): return [.action(action)]
            }
        }
    }

    /// The number of operations held, nested groups included.
    var operationCount: Int { batches.reduce(0) { $0 + $1.operations.count } }

    func append(_ batch: ChangeBatch) {
        items.append(.batch(batch))
        mayHoldTemporaryIDs = true
    }

    /// Appends a batch coalesced into this group (typing's next keystroke): a splice of the
    /// same text as the group's last batch, and nothing else, joins that batch's splice, as
    /// one flush's keystrokes join (``TextEdit/append(_:)``) and as a save joins a group's
    /// keystrokes (docs/FORMAT.md §19.8). A typed word is then one batch and one step to undo,
    /// not a batch per keystroke (docs/TEXT.md, "Undo").
    func appendJoiningSplices(_ batch: ChangeBatch) {
        guard let index = items.indices.last, case .batch(var last) = items[index],
              last.isUndoable == batch.isUndoable, last.kind == batch.kind,
              last.operations.count == 1, batch.operations.count == 1,
              case .splice(let id, let slot, var edit) = last.operations[0],
              case .splice(id, slot, let next) = batch.operations[0]
        else { return append(batch) }
        // The item and the operation let go of the edit first, so that its steps are
        // extended in place: a copy of them per keystroke made a long step quadratic.
        items[index] = .batch(ChangeBatch(sequence: 0, operations: [], isUndoable: false, kind: last.kind, groupID: 0))
        last.operations[0] = .splice(id, slot: slot, edit: TextEdit())
        for step in next.steps { edit.append(step) }
        last.operations[0] = .splice(id, slot: slot, edit: edit)
        last.sequence = batch.sequence
        items[index] = .batch(last)
        mayHoldTemporaryIDs = true
    }


    func append(_ action: UndoAction) {
        items.append(.action(action))
        hasActions = true
    }

    func append(_ group: UndoGroup) {
        items.append(.group(group))
        if group.hasActions { hasActions = true }
        if group.mayHoldTemporaryIDs { mayHoldTemporaryIDs = true }
    }

    /// Renames the object IDs the group holds (``ContextUndoManager/remapIDs(_:reintroducingTemporaryIDs:)``).
    func remapIDs(_ transform: (ManagedObjectID) -> ManagedObjectID, reintroducingTemporaryIDs: Bool = false) {
        guard mayHoldTemporaryIDs || reintroducingTemporaryIDs else { return }
        items = items.map { item in
            switch item {
            case .batch(var batch):
                batch.operations = batch.operations.map { $0.mapIDs(transform) }
                return .batch(batch)
            case .group(let group):
                group.remapIDs(transform, reintroducingTemporaryIDs: reintroducingTemporaryIDs)
                return .group(group)
            case .action:
                return item
            }
        }
        inverseOperations = inverseOperations?.map { $0.mapIDs(transform) }
        mayHoldTemporaryIDs = reintroducingTemporaryIDs
    }
}

/// An app-level undo action (``ContextUndoManager/registerUndo(withTarget:handler:)``):
/// the target, held strongly as long as the action is on a stack, and what to do to it.
struct UndoAction {
    /// The target's identity, for ``ContextUndoManager/removeAllActions(withTarget:)``.
    let target: ObjectIdentifier
    /// Calls the handler with the target (the closure holds the target).
    let run: () throws -> Void

    init(target: AnyObject, run: @escaping () throws -> Void) {
        self.target = ObjectIdentifier(target)
        self.run = run
    }
}
