/// What every ID of one entity in one store shares: the entity, the store's tag and whether
/// the IDs are temporary. Interned, so an ID is this reference and a key.
///
/// A million-object save puts a million IDs in ObjectsDidChange's and DidSave's sets, the
/// log and every object; folding three fields into one shared reference takes each ID from
/// a 24-byte to a 16-byte stride (docs/ARCHITECTURE.md, "Object IDs").
final class ObjectIDScope: Sendable {
    /// The entity of the IDs.
    let entity: EntityDescription
    /// The store's tag in ``StoreRegistry``; 0 for temporary IDs.
    let storeTag: UInt32
    /// Whether the IDs were issued at insertion and not yet replaced by a save.
    let isTemporary: Bool

    private init(entity: EntityDescription, storeTag: UInt32, isTemporary: Bool) {
        self.entity = entity
        self.storeTag = storeTag
        self.isTemporary = isTemporary
    }

    /// The one scope for `entity` in the store tagged `storeTag` (or its temporary scope),
    /// created on first use.
    ///
    /// IDs compare scopes by identity, so there is only ever one per entity, tag and kind:
    /// the process-wide table is read and filled under its lock.
    static func of(_ entity: EntityDescription, storeTag: UInt32, isTemporary: Bool) -> ObjectIDScope {
        let key = Key(entity: ObjectIdentifier(entity), storeTag: storeTag, isTemporary: isTemporary)
        return table.withLock { table in
            if let scope = table.scopes[key] { return scope }
            table.purgeIfDue()
            let scope = ObjectIDScope(entity: entity, storeTag: storeTag, isTemporary: isTemporary)
            table.scopes[key] = scope
            return scope
        }
    }

    /// Drops every scope no ID holds now, rather than at the next purge (for tests).
    static func purgeUnused() {
        table.withLock { $0.purge() }
    }

    /// The table holds every scope strongly, and a scope its entity (an ID keeps its entity
    /// alive, as it always has). Why not weakly, per entity: enums whose every case starts
    /// with an ID (``ChangeOperation``) keep their case in the spare bits of the scope
    /// pointer, which LeakSanitizer then cannot follow; a scope reachable only through log
    /// operations would read as leaked. Here every scope is reachable from the table, and
    /// one no ID holds any more is dropped at the next purge (with its entity, unless the
    /// model still holds it).
    private static let table = Locked(Table())

    private struct Key: Hashable {
        let entity: ObjectIdentifier   // the scope holds the entity, so the identifier stays its
        let storeTag: UInt32
        let isTemporary: Bool
    }

    private struct Table {
        var scopes: [Key: ObjectIDScope] = [:]
        /// The table's size that triggers the next purge: twice what survived the last one,
        /// so purging costs amortized constant time per new scope.
        var purgeAt = 64

        /// Purges when the table has doubled since the last purge.
        mutating func purgeIfDue() {
            if scopes.count >= purgeAt { purge() }
        }

        /// Drops the scopes the table alone holds.
        mutating func purge() {
            for key in Array(scopes.keys) where isKnownUniquelyReferenced(&scopes[key]!) {
                // Nothing else holds it, and nothing can take it without this lock.
                scopes[key] = nil
            }
            purgeAt = Swift.max(64, 2 * scopes.count)
        }
    }
}

/// Scopes a loop has looked up, by entity index: loops that make many permanent IDs (a
/// save's renaming, a segment's decoding, a fetch's rows) take an entity table's lock once
/// per entity and store, not once per ID.
struct ObjectIDScopeCache {
    private var byEntityIndex: [ObjectIDScope?] = []

    /// A permanent ID of `entity` in the store tagged `storeTag`.
    mutating func id(_ entity: EntityDescription, storeTag: UInt32, primaryKey: Int64) -> ManagedObjectID {
        let index = entity.index
        if index >= 0, index < byEntityIndex.count, let scope = byEntityIndex[index],
           scope.entity === entity, scope.storeTag == storeTag {
            return ManagedObjectID(scope: scope, primaryKey: primaryKey)
        }
        let scope = ObjectIDScope.of(entity, storeTag: storeTag, isTemporary: false)
        if index >= 0 {
            if index >= byEntityIndex.count {
                byEntityIndex.append(contentsOf: repeatElement(nil, count: index + 1 - byEntityIndex.count))
            }
            byEntityIndex[index] = scope
        }
        return ManagedObjectID(scope: scope, primaryKey: primaryKey)
    }
}
