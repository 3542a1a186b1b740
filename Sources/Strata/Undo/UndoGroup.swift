import Foundation

/// One undo group: the batches (and nested groups) undone as a unit.
final class UndoGroup {
    enum Item {
        case batch(ChangeBatch)
        case group(UndoGroup)
    }

    /// Temporary until the save that writes the group gives it a permanent id.
    var id: UInt64
    let kind: ChangeGroupKind
    var revertsGroup: UInt64?
    var actionName: String
    var items: [Item] = []
    /// Set when a batch is added; cleared once a save replaced temporary IDs.
    var mayHoldTemporaryIDs = false
    /// The operations replaying this group logs, when known beforehand: a group recorded by
    /// the one-pass replay of one batch reverts that batch, so replaying it logs that batch's
    /// operations again (redo after undo, undo after redo), and they need not be rebuilt.
    var inverseOperations: [ChangeOperation]?

    init(id: UInt64, kind: ChangeGroupKind, revertsGroup: UInt64? = nil, actionName: String = "") {
        self.id = id
        self.kind = kind
        self.revertsGroup = revertsGroup
        self.actionName = actionName
    }

    var info: ChangeGroupInfo {
        ChangeGroupInfo(id: id, kind: kind, revertsGroup: revertsGroup, actionName: actionName)
    }

    var isEmpty: Bool { items.allSatisfy { if case .group(let g) = $0 { g.isEmpty } else { false } } }

    /// Every batch, oldest first, nested groups flattened.
    var batches: [ChangeBatch] {
        items.flatMap { item -> [ChangeBatch] in
            switch item {
            case .batch(let batch): return [batch]
            case .group(let group): return group.batches
            }
        }
    }

    /// The number of operations held, nested groups included.
    var operationCount: Int { batches.reduce(0) { $0 + $1.operations.count } }

    func append(_ batch: ChangeBatch) {
        items.append(.batch(batch))
        mayHoldTemporaryIDs = true
    }

    func remapIDs(_ transform: (ManagedObjectID) -> ManagedObjectID) {
        guard mayHoldTemporaryIDs else { return }
        items = items.map { item in
            switch item {
            case .batch(var batch):
                batch.operations = batch.operations.map { $0.mapIDs(transform) }
                return .batch(batch)
            case .group(let group):
                group.remapIDs(transform)
                return .group(group)
            }
        }
        inverseOperations = inverseOperations?.map { $0.mapIDs(transform) }
        mayHoldTemporaryIDs = false
    }
}
