import Foundation

/// The changed slots of one ``ChangeOperation/update(_:changes:)``, in slot order.
///
/// A collection of ``SlotChange`` that shares its storage with its ``inverse``: inverting
/// an update (every undo does) swaps old and new as the changes are read instead of
/// building them again, so an undo allocates nothing per operation and the log holds each
/// change's values once for an edit and all its undos and redos.
///
/// ```swift
/// let changes: SlotChanges = [SlotChange(slot: 3, old: 50, new: 55)]
/// changes.inverse[0].new   // 50
/// ```
public struct SlotChanges: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    private var storage: [SlotChange]
    /// Whether each stored change is read with old and new swapped.
    private var isInverted: Bool

    /// Creates the changes of an update.
    public init(_ changes: [SlotChange]) {
        storage = changes
        isInverted = false
    }

    /// Creates the changes of an update from a literal list.
    public init(arrayLiteral changes: SlotChange...) {
        self.init(changes)
    }

    private init(storage: [SlotChange], isInverted: Bool) {
        self.storage = storage
        self.isInverted = isInverted
    }

    /// The changes that undo these: the same slots with old and new swapped. Costs no copy.
    public var inverse: SlotChanges { SlotChanges(storage: storage, isInverted: !isInverted) }

    /// The position of the first change.
    public var startIndex: Int { 0 }
    /// The position after the last change.
    public var endIndex: Int { storage.count }
    /// The number of changes.
    public var count: Int { storage.count }
    /// Whether there are no changes.
    public var isEmpty: Bool { storage.isEmpty }

    /// The change at `position`.
    public subscript(position: Int) -> SlotChange {
        let change = storage[position]
        return isInverted ? SlotChange(slot: change.slot, old: change.new, new: change.old) : change
    }

    // One field at a time, for hot loops: reading a whole change copies both values.

    /// The slot of the change at `position`.
    func slot(at position: Int) -> Int { storage[position].slot }
    /// The old value of the change at `position`.
    func old(at position: Int) -> PropertyValue { isInverted ? storage[position].new : storage[position].old }
    /// The new value of the change at `position`.
    func new(at position: Int) -> PropertyValue { isInverted ? storage[position].old : storage[position].new }

    /// The same changes with both values of each passed through `transform`.
    public func mapValues(_ transform: (PropertyValue) -> PropertyValue) -> SlotChanges {
        SlotChanges(storage: storage.map { SlotChange(slot: $0.slot, old: transform($0.old), new: transform($0.new)) },
                    isInverted: isInverted)
    }

    /// Equal when they hold the same changes in the same order, however they are stored.
    public static func == (lhs: SlotChanges, rhs: SlotChanges) -> Bool {
        if lhs.isInverted == rhs.isInverted { return lhs.storage == rhs.storage }
        return lhs.elementsEqual(rhs)
    }

    /// Hashes the changes as read.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for change in self { hasher.combine(change) }
    }
}

extension SlotChanges: CustomStringConvertible {
    /// The changes as a list.
    public var description: String { Array(self).description }
}
