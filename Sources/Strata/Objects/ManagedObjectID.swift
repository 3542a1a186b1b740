import Foundation
import Synchronization

/// The identity of one record: its entity, its store and its primary key.
///
/// IDs are equal across contexts of one store, are `Sendable`, and cross between contexts
/// where objects may not. A newly inserted object has a temporary ID until a save assigns
/// a permanent one.
///
/// ```swift
/// let uri = employee.objectID.uriRepresentation()   // x-strata://<store>/Employee/p42
/// let again = try coordinator.managedObjectID(forURIRepresentation: uri)
/// ```
public struct ManagedObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    // Stored in this order (8 + 8 + 4 + 1 = 21 bytes): with the tag between the entity and
    // the key, alignment padded the ID to 25 bytes, and every `PropertyValue` (which holds
    // an ID inline) from a 24-byte to a 32-byte stride — a quarter of every object's and
    // every row's value storage (docs/BENCHMARKS.md, "Memory of a big context").

    /// The record's entity.
    public let entity: EntityDescription
    /// The primary key (permanent) or the process-wide temporary number.
    public let primaryKey: Int64
    /// The store's tag in ``StoreRegistry``; 0 while temporary.
    let storeTag: UInt32
    /// Whether the ID was issued at insertion and not yet replaced by a save.
    public let isTemporaryID: Bool

    init(entity: EntityDescription, storeTag: UInt32, primaryKey: Int64) {
        self.entity = entity
        self.storeTag = storeTag
        self.primaryKey = primaryKey
        self.isTemporaryID = false
    }

    private init(temporaryFor entity: EntityDescription, number: Int64) {
        self.entity = entity
        self.storeTag = 0
        self.primaryKey = number
        self.isTemporaryID = true
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    /// A new temporary ID, unique in this process.
    static func temporary(for entity: EntityDescription) -> ManagedObjectID {
        ManagedObjectID(temporaryFor: entity, number: temporaryCounter.add(1, ordering: .relaxed).newValue)
    }

    /// The identifier of the store that holds the record (nil while temporary).
    public var storeIdentifier: String? {
        isTemporaryID ? nil : StoreRegistry.identifier(for: storeTag)
    }

    /// A URI that names the record: `x-strata://STORE/Entity/pKEY`, or
    /// `x-strata:///Entity/tNUMBER` while temporary.
    public func uriRepresentation() -> URL {
        let text = isTemporaryID
            ? "x-strata:///\(entity.name)/t\(primaryKey)"
            : "x-strata://\(storeIdentifier ?? "")/\(entity.name)/p\(primaryKey)"
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The URI as text.
    public var description: String { uriRepresentation().absoluteString }

    /// Equal when they name the same record of the same entity.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.primaryKey == rhs.primaryKey && lhs.storeTag == rhs.storeTag
            && lhs.isTemporaryID == rhs.isTemporaryID && lhs.entity === rhs.entity
    }

    /// Hashes the entity, store and key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashKey)
    }

    /// The hash `Set` and `Dictionary` use, seeded per table.
    ///
    /// Every flush, undo and redo puts each changed ID in a `Set` (ObjectsDidChange), and
    /// `Hasher`'s SipHash finalization is most of that insert's cost. The key is already a
    /// mix of the ID's fields; this XORs the table's seed in and runs a 64-bit finalizer
    /// (MurmurHash3's fmix64), a bijection, so distinct keys never collide in full and a
    /// table's bucket layout still depends on its seed. Consistent with `==` as
    /// `hash(into:)` is.
    public func _rawHashValue(seed: Int) -> Int {
        var bits = hashKey ^ UInt64(UInt(bitPattern: seed))
        bits = (bits ^ bits >> 33) &* 0xFF51_AFD7_ED55_8CCD
        bits = (bits ^ bits >> 33) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: bits ^ bits >> 33)
    }

    /// The fields that take part in equality, folded into one word.
    private var hashKey: UInt64 {
        UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(storeTag) << 48
            ^ UInt64(UInt(bitPattern: ObjectIdentifier(entity)))
    }

    /// Orders by entity name, then permanent before temporary, then key: a stable order for
    /// output and tests.
    public static func < (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        if lhs.entity !== rhs.entity { return lhs.entity.name < rhs.entity.name }
        if lhs.isTemporaryID != rhs.isTemporaryID { return !lhs.isTemporaryID }
        return lhs.primaryKey < rhs.primaryKey
    }
}

/// Interns store identifiers so object IDs carry a small tag instead of a string.
enum StoreRegistry {
    private static let table = Locked<(byName: [String: UInt32], names: [String])>(([:], [""]))

    /// The tag for a store identifier, created on first use.
    static func tag(for identifier: String) -> UInt32 {
        table.withLock { state in
            if let tag = state.byName[identifier] { return tag }
            let tag = UInt32(state.names.count)
            state.names.append(identifier)
            state.byName[identifier] = tag
            return tag
        }
    }

    /// The identifier a tag stands for.
    static func identifier(for tag: UInt32) -> String {
        table.withLock { state in Int(tag) < state.names.count ? state.names[Int(tag)] : "" }
    }
}
