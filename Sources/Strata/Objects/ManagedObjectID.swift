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
    // Two words: the scope (entity, store tag, temporary or not, interned per entity) and
    // the key. Every ID of a big save sits in ObjectsDidChange's and DidSave's sets and in
    // the log; three inline fields padded it to a 24-byte stride (docs/ARCHITECTURE.md,
    // "Object IDs").
    let scope: ObjectIDScope
    /// The primary key (permanent) or the process-wide temporary number.
    public let primaryKey: Int64

    /// The record's entity.
    public var entity: EntityDescription { scope.entity }
    /// The store's tag in ``StoreRegistry``; 0 while temporary.
    var storeTag: UInt32 { scope.storeTag }
    /// Whether the ID was issued at insertion and not yet replaced by a save.
    public var isTemporaryID: Bool { scope.isTemporary }

    init(entity: EntityDescription, storeTag: UInt32, primaryKey: Int64) {
        self.scope = ObjectIDScope.of(entity, storeTag: storeTag, isTemporary: false)
        self.primaryKey = primaryKey
    }

    /// An ID in a scope already looked up: loops that make many IDs of one entity and
    /// store look the scope up once.
    init(scope: ObjectIDScope, primaryKey: Int64) {
        self.scope = scope
        self.primaryKey = primaryKey
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    /// A new temporary ID, unique in this process.
    static func temporary(for entity: EntityDescription) -> ManagedObjectID {
        ManagedObjectID(
            scope: ObjectIDScope.of(entity, storeTag: 0, isTemporary: true),
            primaryKey: temporaryCounter.add(1, ordering: .relaxed).newValue)
    }

    /// What IDs of one entity, store and kind share (and no other ID has while one of them
    /// lives): the tools cache per scope the URI text every ID of it starts with.
    package var scopeIdentity: ObjectIdentifier { ObjectIdentifier(scope) }

    /// The identifier of the store that holds the record (nil while temporary).
    public var storeIdentifier: String? {
        isTemporaryID ? nil : StoreRegistry.identifier(for: storeTag)
    }

    /// A URI that names the record: `x-strata://STORE/Entity/pKEY`, or
    /// `x-strata:///Entity/tNUMBER` while temporary.
    public func uriRepresentation() -> URL {
        URL(string: uriText) ?? URL(fileURLWithPath: "/")
    }

    /// The URI before `URL` parses it.
    private var uriText: String {
        isTemporaryID
            ? "x-strata:///\(entity.name)/t\(primaryKey)"
            : "x-strata://\(storeIdentifier ?? "")/\(entity.name)/p\(primaryKey)"
    }

    /// The URI as text. Without parsing a `URL` when nothing in it needs percent-encoding
    /// (names of letters, digits and `_`, a UUID): the tools write one per record.
    public var description: String {
        let text = uriText
        let plain = text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
        }
        return plain ? text : uriRepresentation().absoluteString
    }

    /// Equal when they name the same record of the same entity.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        // One live scope per entity, store and kind (ObjectIDScope.of), so identity is
        // equality of all three.
        lhs.primaryKey == rhs.primaryKey && lhs.scope === rhs.scope
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
        UInt64(bitPattern: primaryKey) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt(bitPattern: ObjectIdentifier(scope)))
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
