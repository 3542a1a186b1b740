import Foundation
import OrderedCollections

/// The records of a custom migration stage (``MigrationStage/mapping(to:migrate:)``): the
/// records as they were in the stage's source model, read by entity and followed through
/// their relationships, and the records of the destination model, which the stage reads,
/// changes, inserts, relates and deletes (Core Data's custom entity migration policy).
///
/// The inferred part of the stage runs first: every record the two models can match is
/// already carried into the destination (``migratedRecords(of:)``, ``destination(for:)``);
/// the stage's code does the rest. Records are values: read one again after changing it.
///
/// ```swift
/// .mapping(to: v2) { context in
///     for employee in try context.records(of: "Employee") {
///         let address = try context.insert(entity: "Address")
///         var changed = address
///         changed["city"] = employee["city"]
///         try context.update(changed)
///         try context.relate(context.destination(for: employee)!, "address", to: [changed])
///     }
/// }
/// ```
public final class MigrationContext {
    /// The model the records were in before the stage.
    public let source: ManagedObjectModel
    /// The model the stage writes its records in.
    public let destination: ManagedObjectModel
    let storeTag: UInt32
    let old: [ManagedObjectID: [PropertyValue]]
    let newID: [ManagedObjectID: ManagedObjectID]
    var records: [ManagedObjectID: [PropertyValue]]
    var keyCounters: [String: Int64]
    private var deleted: Set<ManagedObjectID> = []
    private let progressHandler: ((Int, Int) -> Void)?

    init(plan: MigrationPlan, old: [ManagedObjectID: [PropertyValue]], migrated: MigrationPlan.Migrated, storeTag: UInt32,
         progress: ((Int, Int) -> Void)?) {
        source = plan.source
        destination = plan.destination
        self.storeTag = storeTag
        self.old = old
        newID = migrated.newID
        records = migrated.records
        keyCounters = migrated.keyCounters
        progressHandler = progress
    }

    /// The records of `entity` (and of its subentities) in the source model, in key order.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` when the source model has no such entity.
    public func records(of entity: String) throws -> [MigrationRecord] {
        let described = try Self.entity(entity, in: source, side: "source")
        return old.keys.filter { $0.entity.isKind(of: described) }.sorted().map { MigrationRecord(id: $0, values: old[$0]!) }
    }

    /// A record of the source model by ID: where a source record's relationship leads
    /// (`context.record(id)` for each ID of `old["department"].objectIDs`).
    public func record(_ id: ManagedObjectID) -> MigrationRecord? {
        old[id].map { MigrationRecord(id: id, values: $0) }
    }

    /// The record a source record became in the destination model, as it is now; nil when
    /// its entity was dropped or the stage deleted it.
    public func destination(for old: MigrationRecord) -> MigrationRecord? {
        guard let id = newID[old.objectID] else { return nil }
        return migratedRecord(id)
    }

    /// A destination record by ID, as it is now.
    public func migratedRecord(_ id: ManagedObjectID) -> MigrationRecord? {
        records[id].map { MigrationRecord(id: id, values: $0) }
    }

    /// The destination records of `entity` (and of its subentities), as they are now, in key order.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` when the destination model has no such entity.
    public func migratedRecords(of entity: String) throws -> [MigrationRecord] {
        let described = try Self.entity(entity, in: destination, side: "destination")
        return records.keys.filter { $0.entity.isKind(of: described) }.sorted().map { MigrationRecord(id: $0, values: records[$0]!) }
    }

    /// Inserts a record of `entity` in the destination model, with a new key and its
    /// attributes' default values; set its values with ``update(_:)``.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` for an entity the destination model
    ///   does not have or that is abstract.
    public func insert(entity: String) throws -> MigrationRecord {
        let described = try Self.entity(entity, in: destination, side: "destination")
        guard !described.isAbstract else {
            throw StrataError(.invalidArgument, "A migration stage cannot insert a record of \(entity): it is abstract.", context: .init { $0.entity = entity })
        }
        let root = described.rootEntity.name
        let key = (keyCounters[root] ?? 0) + 1
        keyCounters[root] = key
        let id = ManagedObjectID(entity: described, storeTag: storeTag, primaryKey: key)
        var values: [PropertyValue] = []
        for slot in 0..<described.slotCount {
            let name = described.slotName(slot)
            if let attribute = described.attributesByName[name] {
                values.append(attribute.isTransient ? .null : attribute.defaultValue)
            } else if let relationship = described.relationshipsByName[name], relationship.isToMany {
                values.append(.objects([]))
            } else {
                values.append(.null)
            }
        }
        records[id] = values
        return MigrationRecord(id: id, values: values)
    }

    /// Writes `record`'s attribute values (set through its subscript) to the destination
    /// record; its relationships are set with ``relate(_:_:to:)``.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` when `record` is not a destination record
    ///   of this stage (a source record, or one deleted).
    public func update(_ record: MigrationRecord) throws {
        let id = try existing(record)
        var values = records[id]!
        for attribute in id.entity.attributes where !attribute.isTransient {
            guard let slot = id.entity.slotIndex(of: attribute.name) else { continue }
            values[slot] = record.values[slot]
        }
        records[id] = values
    }

    /// Sets the relationship `name` of a destination record to `targets` (at most one for a
    /// to-one; none clears it), keeping its inverse on both the old and the new targets.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` naming the record and the relationship
    ///   when it has no such relationship, a target is not a destination record of its
    ///   destination entity, or a to-one is given several.
    public func relate(_ record: MigrationRecord, _ name: String, to targets: [MigrationRecord]) throws {
        let id = try existing(record)
        func refuse(_ why: String) -> StrataError {
            StrataError(.invalidArgument, "A migration stage cannot set \(id.entity.name).\(name) of \(id): \(why).",
                        context: .init { $0.entity = id.entity.name; $0.key = name })
        }
        guard let relationship = id.entity.relationshipsByName[name], !relationship.isTransient,
              let slot = id.entity.slotIndex(of: name) else { throw refuse("\(id.entity.name) has no such relationship") }
        let target = id.entity.destination(of: relationship)
        var members: [ManagedObjectID] = []
        for other in targets {
            let otherID = try existing(other)
            guard otherID.entity.isKind(of: target) else { throw refuse("\(otherID) is not \(withArticle(target.name))") }
            if !members.contains(otherID) { members.append(otherID) }
        }
        if !relationship.isToMany, members.count > 1 { throw refuse("it is a to-one, given \(members.count) records") }
        let previous = records[id]![slot].objectIDs
        records[id]![slot] = relationship.isToMany ? .objects(OrderedSet(members)) : (members.first.map { .object($0) } ?? .null)
        guard let inverseName = relationship.inverseName, let inverse = target.relationshipsByName[inverseName] else { return }
        for member in previous where !members.contains(member) { unlink(member, inverseName, from: id) }
        for member in members where !previous.contains(member) {
            guard let inverseSlot = member.entity.slotIndex(of: inverseName) else { continue }
            if inverse.isToMany {
                var set = OrderedSet(records[member]![inverseSlot].objectIDs)
                set.append(id)
                records[member]![inverseSlot] = .objects(set)
            } else {
                // The member leaves the record that held it through the to-one inverse.
                if case .object(let holder) = records[member]![inverseSlot], holder != id { unlink(holder, name, from: member) }
                records[member]![inverseSlot] = .object(id)
            }
        }
    }

    /// Deletes a destination record; relationships to it are cleared.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` when `record` is not a destination record.
    public func delete(_ record: MigrationRecord) throws {
        let id = try existing(record)
        records[id] = nil
        deleted.insert(id)
    }

    /// Reports the stage's progress (records done, records in all) to the migration's
    /// progress handler.
    public func reportProgress(done: Int, total: Int) {
        progressHandler?(done, total)
    }

    /// Removes `id` from the relationship `name` of `record`.
    private func unlink(_ record: ManagedObjectID, _ name: String, from id: ManagedObjectID) {
        guard let slot = record.entity.slotIndex(of: name), var values = records[record] else { return }
        switch values[slot] {
        case .object(let held) where held == id: values[slot] = .null
        case .objects(var set): set.remove(id); values[slot] = .objects(set)
        default: return
        }
        records[record] = values
    }

    private func existing(_ record: MigrationRecord) throws -> ManagedObjectID {
        let id = record.objectID
        guard destination.entities.indices.contains(id.entity.index), destination.entities[id.entity.index] === id.entity,
              records[id] != nil else {
            throw StrataError(.invalidArgument, "\(id) is not a record of the stage's destination model (a source record, or one deleted).",
                              context: .init { $0.object = id.description })
        }
        return id
    }

    private static func entity(_ name: String, in model: ManagedObjectModel, side: String) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else {
            throw StrataError(.invalidArgument, "The migration stage's \(side) model has no entity \(name).", context: .init { $0.entity = name })
        }
        return entity
    }

    /// The records when the stage's code is done: relationships to deleted records dropped,
    /// every required attribute and to-one checked.
    /// - Throws: `.modelIncompatible` naming the first record that misses a required value.
    func finish() throws -> (records: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64]) {
        if !deleted.isEmpty {
            for (id, values) in records where values.contains(where: { !$0.objectIDs.isEmpty }) {
                records[id] = values.map { value in
                    switch value {
                    case .object(let target) where deleted.contains(target): return .null
                    case .objects(let set) where set.contains(where: deleted.contains): return .objects(set.filter { !deleted.contains($0) })
                    default: return value
                    }
                }
            }
        }
        try Self.checkRequired(records)
        return (records, keyCounters)
    }

    /// Refuses records a custom stage left without a required attribute or to-one.
    /// - Throws: `.modelIncompatible` naming the first such record and property.
    static func checkRequired(_ records: [ManagedObjectID: [PropertyValue]]) throws {
        for (id, values) in records.sorted(by: { $0.key < $1.key }) {
            for attribute in id.entity.attributes where !attribute.isOptional && !attribute.isTransient {
                if let slot = id.entity.slotIndex(of: attribute.name), values[slot].isNull {
                    throw StrataError(.modelIncompatible,
                                      "The custom migration stage left \(id.entity.name).\(attribute.name) of \(id) without a value; it is required.",
                                      context: .init { $0.object = id.description; $0.blocking = ["\(id.entity.name).\(attribute.name)"] })
                }
            }
            for relationship in id.entity.relationships where !relationship.isOptional && !relationship.isToMany && !relationship.isTransient {
                if let slot = id.entity.slotIndex(of: relationship.name), values[slot].isNull {
                    throw StrataError(.modelIncompatible,
                                      "The custom migration stage left \(id.entity.name).\(relationship.name) of \(id) empty; it is a required to-one.",
                                      context: .init { $0.object = id.description; $0.blocking = ["\(id.entity.name).\(relationship.name)"] })
                }
            }
        }
    }
}
