import Foundation

/// Writes the slot changes of a flush's update operations into shared buffers: a flush of
/// n single-slot edits allocates once instead of n times, and a log of edits holds 72
/// bytes per change instead of a 112-byte array each. Each update's ``SlotChanges`` is a
/// range of a buffer, handed out as soon as its changes are written.
struct SlotChangesWriter {
    private var storage: SlotChangeStorage?
    /// The room of the next buffer: the changes the flush expects at first, then twice
    /// the last buffer's (so a flush of many multi-slot updates makes few buffers).
    private var nextCapacity: Int

    /// A writer for about `expected` changes.
    init(expected: Int = 1) {
        nextCapacity = min(max(expected, 1), Self.largestBuffer)
    }

    /// The changes of an update with one change (the common edit: no array to build).
    mutating func write(_ change: consuming SlotChange) -> SlotChanges {
        let storage = room(for: 1)
        let position = storage.append(change)
        return SlotChanges(storage: storage, start: position, length: 1)
    }

    /// The changes of an update with any number of changes.
    mutating func write(_ changes: [SlotChange]) -> SlotChanges {
        let storage = room(for: changes.count)
        return SlotChanges(storage: storage, start: storage.append(contentsOf: changes), length: changes.count)
    }

    /// The current buffer, or a new one when it has no room for `count` more changes.
    private mutating func room(for count: Int) -> SlotChangeStorage {
        if let storage, storage.hasRoom(for: count) { return storage }
        let fresh = SlotChangeStorage(capacity: max(count, nextCapacity))
        storage = fresh
        nextCapacity = min(nextCapacity * 2, Self.largestBuffer)
        return fresh
    }

    /// The most changes one buffer is made for (a bigger flush uses several).
    static let largestBuffer = 1 << 16
}
