import Foundation

/// The changed slots of one ``ChangeOperation/update(_:changes:)``, in slot order.
///
/// A collection of ``SlotChange`` that shares its storage with its ``inverse``: inverting
/// an update (every undo does) swaps old and new as the changes are read instead of
/// building them again, so an undo allocates nothing per operation and the log holds each
/// change's values once for an edit and all its undos and redos. The updates of one flush
/// share one buffer too (see `SlotChangesWriter`), so a flush of n edits allocates once.
///
/// ```swift
/// let changes: SlotChanges = [SlotChange(slot: 3, old: 50, new: 55)]
/// changes.inverse[0].new   // 50
/// ```
public struct SlotChanges: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    /// The buffer holding these changes, maybe with other updates' changes around them.
    private let storage: SlotChangeStorage
    /// Where these changes start in `storage`, and how many there are (32-bit, so that an
    /// update operation stays within the size of the largest operation case).
    private let start: UInt32
    private let length: UInt32
    /// Whether each stored change is read with old and new swapped.
    private var isInverted: Bool

    /// Creates the changes of an update.
    public init(_ changes: [SlotChange]) {
        let storage = SlotChangeStorage(capacity: changes.count)
        self.init(storage: storage, start: storage.append(contentsOf: changes), length: changes.count)
    }

    /// Creates the changes of an update from a literal list.
    public init(arrayLiteral changes: SlotChange...) {
        self.init(changes)
    }

    /// `length` changes of `storage` from `start` (already appended to it).
    init(storage: SlotChangeStorage, start: Int, length: Int) {
        precondition(start >= 0 && length >= 0 && start + length <= storage.count, "slot changes out of their storage")
        self.storage = storage
        self.start = UInt32(start)
        self.length = UInt32(length)
        isInverted = false
    }

    /// The changes that undo these: the same slots with old and new swapped. Costs no copy.
    public var inverse: SlotChanges {
        var inverse = self
        inverse.isInverted.toggle()
        return inverse
    }

    /// The position of the first change.
    public var startIndex: Int { 0 }
    /// The position after the last change.
    public var endIndex: Int { Int(length) }
    /// The number of changes.
    public var count: Int { Int(length) }
    /// Whether there are no changes.
    public var isEmpty: Bool { length == 0 }

    /// The change at `position`.
    public subscript(position: Int) -> SlotChange {
        precondition(position >= 0 && position < Int(length), "slot change index out of range")
        let change = storage.element(Int(start) &+ position)
        return isInverted ? SlotChange(slot: change.slot, old: change.new, new: change.old) : change
    }

    // One field at a time, for hot loops: reading a whole change copies both values. The
    // caller passes a position in `indices`.

    /// The slot of the change at `position`.
    func slot(at position: Int) -> Int { storage.slot(Int(start) &+ position) }
    /// The old value of the change at `position`.
    func old(at position: Int) -> PropertyValue { storage.value(Int(start) &+ position, isOld: !isInverted) }

    /// Whether the change at `position` changes anything (old differs from new), compared
    /// in place.
    func isChange(at position: Int) -> Bool { storage.isChange(Int(start) &+ position) }
    /// Whether the new value of the change at `position` is `value`, compared in place.
    func new(at position: Int, equals value: PropertyValue) -> Bool {
        storage.value(Int(start) &+ position, isOld: isInverted, equals: value)
    }

    /// The same changes with both values of each passed through `transform`.
    public func mapValues(_ transform: (PropertyValue) -> PropertyValue) -> SlotChanges {
        let stored = (Int(start) ..< Int(start) + count).map(storage.element)
        var result = SlotChanges(stored.map { SlotChange(slot: $0.slot, old: transform($0.old), new: transform($0.new)) })
        result.isInverted = isInverted
        return result
    }

    /// Equal when they hold the same changes in the same order, however they are stored.
    public static func == (lhs: SlotChanges, rhs: SlotChanges) -> Bool {
        lhs.length == rhs.length && lhs.elementsEqual(rhs)
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

/// A fixed-capacity buffer of slot changes, appended to by one writer and then only read.
///
/// Changes are appended while the flush that owns it builds its operations; the
/// ``SlotChanges`` handed out read only the ranges appended before them, and no operation
/// leaves the flush (or its thread) before the last append, so reads never race a write.
///
/// Reads check positions only in debug builds: a ``SlotChanges`` checks its range against
/// the storage when it is made and its positions against its length, and a storage only
/// grows.
final class SlotChangeStorage: @unchecked Sendable {
    private let elements: UnsafeMutablePointer<SlotChange>
    /// The most changes it holds.
    let capacity: Int
    /// The number of changes appended.
    @exclusivity(unchecked) private(set) var count = 0

    /// An empty buffer with room for `capacity` changes.
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        elements = .allocate(capacity: self.capacity)
    }

    /// Whether `extra` more changes fit.
    func hasRoom(for extra: Int) -> Bool { count + extra <= capacity }

    /// Appends a change (the caller checked ``hasRoom(for:)``); returns its position.
    func append(_ change: consuming SlotChange) -> Int {
        precondition(count < capacity, "slot change storage is full")
        (elements + count).initialize(to: change)
        count += 1
        return count - 1
    }

    /// Appends changes (the caller checked ``hasRoom(for:)``); returns the first one's position.
    func append(contentsOf changes: [SlotChange]) -> Int {
        let start = count
        for change in changes { _ = append(change) }
        return start
    }

    func element(_ position: Int) -> SlotChange {
        assert(position >= 0 && position < count, "slot change position out of range")
        return elements[position]
    }

    func slot(_ position: Int) -> Int {
        assert(position >= 0 && position < count, "slot change position out of range")
        return elements[position].slot
    }

    func value(_ position: Int, isOld: Bool) -> PropertyValue {
        assert(position >= 0 && position < count, "slot change position out of range")
        return isOld ? elements[position].old : elements[position].new
    }

    func isChange(_ position: Int) -> Bool {
        assert(position >= 0 && position < count, "slot change position out of range")
        return elements[position].old != elements[position].new
    }

    func value(_ position: Int, isOld: Bool, equals value: PropertyValue) -> Bool {
        assert(position >= 0 && position < count, "slot change position out of range")
        return isOld ? elements[position].old == value : elements[position].new == value
    }

    deinit {
        elements.deinitialize(count: count)
        elements.deallocate()
    }
}
