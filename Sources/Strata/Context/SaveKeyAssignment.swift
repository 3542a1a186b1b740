import Foundation

/// The keys a context's save gave its new records inside its held write, kept until the
/// write ends: once it commits, children hear of the new IDs; if it fails, the records take
/// temporary IDs again, because the reservation was rolled back with the write and another
/// writer may be handed the same keys (docs/ARCHITECTURE.md, "When new objects get their
/// keys").
struct SaveKeyAssignment {
    /// Per root entity: the tag of the store that reserved the keys, and the keys.
    var reserved: [ObjectIdentifier: (tag: UInt32, keys: ClosedRange<Int64>)] = [:]
    /// Temporary → permanent ID, built only when the context has children (they know the
    /// records by their temporary IDs): a bulk save without children builds no dictionary.
    var forChildren: [ManagedObjectID: ManagedObjectID] = [:]

    /// Whether the save gave no record a key.
    var isEmpty: Bool { reserved.isEmpty }

    /// Whether `id` is one of the permanent IDs this assignment gave.
    func gave(_ id: ManagedObjectID) -> Bool {
        guard !id.isTemporaryID, let entry = reserved[ObjectIdentifier(id.entity.rootEntity)] else { return false }
        return entry.tag == id.storeTag && entry.keys.contains(id.primaryKey)
    }
}

/// New keys by temporary number, for the records of one save.
///
/// Temporary numbers are process-wide and handed out in order, so one context's new
/// records cover a dense range: an array indexed by number takes a quarter of a
/// dictionary's bytes (at a million-object save the largest thing the renaming adds).
/// A range other contexts' inserts made sparse takes a dictionary.
struct TemporaryKeyTable {
    /// Not a temporary number of the save.
    private static let unseen = Int64.min
    /// A number of the save that has no key yet.
    private static let pending = Int64.min + 1

    private let lowest: Int64
    private var dense: ContiguousArray<Int64> = []
    private var sparse: [Int64: Int64]?

    /// A table for the numbers `lowest...highest`, of which about `records` are used.
    init(lowest: Int64, highest: Int64, records: Int) {
        self.lowest = lowest
        let span = highest - lowest + 1
        if span <= Int64(records) * 4 + 1_024 {
            dense = ContiguousArray(repeating: Self.unseen, count: Int(span))
        } else {
            sparse = [:]
            sparse?.reserveCapacity(records)
        }
    }

    /// Marks `number` as one of the save's; true the first time.
    mutating func markSeen(_ number: Int64) -> Bool {
        if sparse != nil {
            guard sparse![number] == nil else { return false }
            sparse![number] = Self.pending
            return true
        }
        let index = Int(number - lowest)
        guard dense[index] == Self.unseen else { return false }
        dense[index] = Self.pending
        return true
    }

    /// Gives a seen number its key (`key()` called only then); true when it did.
    mutating func assignIfPending(_ number: Int64, _ key: () -> Int64) -> Bool {
        if sparse != nil {
            guard sparse![number] == Self.pending else { return false }
            sparse![number] = key()
            return true
        }
        let index = Int(number - lowest)
        guard index >= 0, index < dense.count, dense[index] == Self.pending else { return false }
        dense[index] = key()
        return true
    }

    /// The key given to `number`, or nil.
    func key(for number: Int64) -> Int64? {
        let key: Int64
        if let sparse {
            guard let found = sparse[number] else { return nil }
            key = found
        } else {
            let index = number - lowest
            guard index >= 0, index < Int64(dense.count) else { return nil }
            key = dense[Int(index)]
        }
        return key == Self.unseen || key == Self.pending ? nil : key
    }
}
