import Foundation
import OrderedCollections

extension MigrationPlan {
    /// A custom stage's change to one migrated record (``MigrationStage/custom(to:transform:)``).
    typealias RecordTransform = @Sendable (_ old: MigrationRecord, _ new: inout MigrationRecord) throws -> Void

    /// Records carried into the destination model, with the ID each source record got.
    struct Migrated {
        var records: [ManagedObjectID: [PropertyValue]]
        var keyCounters: [String: Int64]
        var newID: [ManagedObjectID: ManagedObjectID]
    }

    /// Records of the source model in the destination model: carried by the inferred
    /// mapping (``carry(_:keyCounters:storeTag:transform:checksUniqueness:)``), then
    /// completed by a custom stage's code, or, replaying across a custom stage, the
    /// records it wrote.
    /// - Returns: the records and the key counters, by destination root entity name.
    /// - Throws: `.modelIncompatible` when a changed uniqueness constraint is broken by
    ///   the records or a custom stage leaves a required value empty; what the code throws.
    func migrate(_ records: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64], storeTag: UInt32,
                 code: MigrationStageCode = .inferred, progress: ((Int, Int) -> Void)? = nil)
        throws -> (records: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64]) {
        switch code {
        case .inferred:
            let carried = try carry(records, keyCounters: keyCounters, storeTag: storeTag)
            return (carried.records, carried.keyCounters)
        case .transform(let transform):
            let carried = try carry(records, keyCounters: keyCounters, storeTag: storeTag, transform: transform)
            try MigrationContext.checkRequired(carried.records)
            return (carried.records, carried.keyCounters)
        case .mapping(let body):
            let carried = try carry(records, keyCounters: keyCounters, storeTag: storeTag, checksUniqueness: false)
            let context = MigrationContext(plan: self, old: records, migrated: carried, storeTag: storeTag, progress: progress)
            try body(context)
            let finished = try context.finish()
            try checkUniqueness(finished.records)
            return finished
        case .checkpoint(let saved):
            return restore(saved, keyCounters: keyCounters, storeTag: storeTag)
        }
    }

    /// The records a custom stage wrote, as records of this store in the destination model.
    private func restore(_ saved: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64], storeTag: UInt32)
        -> (records: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64]) {
        func local(_ id: ManagedObjectID) -> ManagedObjectID {
            ManagedObjectID(entity: destination.entities[id.entity.index], storeTag: storeTag, primaryKey: id.primaryKey)
        }
        var counters: [String: Int64] = [:]
        for entity in destination.entities where entity.superentity == nil { counters[entity.name] = keyCounters[entity.name] ?? 0 }
        var records: [ManagedObjectID: [PropertyValue]] = [:]
        records.reserveCapacity(saved.count)
        for (id, values) in saved {
            let mine = local(id)
            records[mine] = values.map { value in
                switch value {
                case .object(let target): return .object(local(target))
                case .objects(let set): return .objects(OrderedSet(set.map(local)))
                default: return value
                }
            }
            let root = mine.entity.rootEntity.name
            counters[root] = max(counters[root] ?? 0, mine.primaryKey)
        }
        return (records, counters)
    }

    /// Records of the source model carried into the destination model: the same keys
    /// (a record moved into another entity hierarchy by a parent change gets a new key
    /// above that hierarchy's keys when its own is taken), values copied, widened or
    /// defaulted, relationships to dropped records removed, and each new relationship
    /// whose inverse existed filled from it.
    /// - Parameters:
    ///   - records: every record of the source model, by ID.
    ///   - keyCounters: the largest key handed out per source root entity name.
    /// - Throws: `.modelIncompatible` when a changed uniqueness constraint is broken by
    ///   the records, naming the entity and the values.
    func carry(_ records: [ManagedObjectID: [PropertyValue]], keyCounters: [String: Int64], storeTag: UInt32,
               transform: RecordTransform? = nil, checksUniqueness: Bool = true) throws -> Migrated {
        var destinationOf: [Int: EntityDescription] = [:]
        for entity in destination.entities { if let from = sourceEntity[entity.index] { destinationOf[from] = entity } }
        // New keys, per destination root, in key order so they do not depend on hash order.
        var counters: [String: Int64] = [:]
        for entity in source.entities where entity.superentity == nil {
            guard let target = destinationOf[entity.index]?.rootEntity else { continue }
            counters[target.name] = max(counters[target.name] ?? 0, keyCounters[entity.name] ?? 0)
        }
        var taken: [Int: Set<Int64>] = [:]
        var newID: [ManagedObjectID: ManagedObjectID] = [:]
        var moved: [ManagedObjectID] = []
        // Records that stay in their hierarchy keep their keys; those a parent change moves
        // into another come second and yield where a key is taken.
        let ordered = records.keys.sorted().sorted { stays($0, destinationOf) && !stays($1, destinationOf) }
        for id in ordered {
            guard let target = destinationOf[id.entity.index] else { continue }
            let root = target.rootEntity
            if stays(id, destinationOf), taken[root.index, default: []].insert(id.primaryKey).inserted {
                newID[id] = ManagedObjectID(entity: target, storeTag: storeTag, primaryKey: id.primaryKey)
            } else {
                moved.append(id)
            }
        }
        // A new key comes from the records alone (the largest in the hierarchy, plus one),
        // so replaying the log through the same migration (strata-log verify) gives the
        // same keys.
        var largest: [Int: Int64] = taken.mapValues { $0.max() ?? 0 }
        for id in moved {
            let root = destinationOf[id.entity.index]!.rootEntity
            largest[root.index] = max(largest[root.index] ?? 0, id.primaryKey)
        }
        for id in moved {
            let target = destinationOf[id.entity.index]!
            let root = target.rootEntity
            var key = id.primaryKey
            if !taken[root.index, default: []].insert(key).inserted {
                key = largest[root.index, default: 0] + 1
                largest[root.index] = key
                taken[root.index, default: []].insert(key)
            }
            counters[root.name] = max(counters[root.name] ?? 0, key)
            newID[id] = ManagedObjectID(entity: target, storeTag: storeTag, primaryKey: key)
        }
        for mapped in newID.values { counters[mapped.entity.rootEntity.name] = max(counters[mapped.entity.rootEntity.name] ?? 0, mapped.primaryKey) }

        var result: [ManagedObjectID: [PropertyValue]] = [:]
        result.reserveCapacity(newID.count)
        for (oldID, id) in newID {
            guard let values = records[oldID] else { continue }
            let entity = id.entity
            var row: [PropertyValue] = []
            row.reserveCapacity(entity.slotCount)
            for slot in 0..<entity.slotCount {
                row.append(value(for: slot, of: entity, from: values) { newID[$0] })
            }
            if let transform {
                var new = MigrationRecord(id: id, values: row)
                try transform(MigrationRecord(id: oldID, values: values), &new)
                row = new.values
            }
            result[id] = row
        }
        fillNewInverses(&result)
        if checksUniqueness { try checkUniqueness(result) }
        return Migrated(records: result, keyCounters: counters, newID: newID)
    }

    /// Whether a record's hierarchy is the same in the destination: its source root
    /// entity became the root of the entity the record becomes.
    private func stays(_ id: ManagedObjectID, _ destinationOf: [Int: EntityDescription]) -> Bool {
        guard let target = destinationOf[id.entity.index] else { return false }
        return destinationOf[id.entity.rootEntity.index] === target.rootEntity
    }

    /// A source record's values carried into `entity` of the destination, given the ID each
    /// source record gets (nil for one dropped).
    func carriedValues(_ values: [PropertyValue], as entity: EntityDescription,
                       newID: (ManagedObjectID) -> ManagedObjectID?) -> [PropertyValue] {
        (0..<entity.slotCount).map { value(for: $0, of: entity, from: values, newID: newID) }
    }

    /// The destination value of one slot.
    private func value(for slot: Int, of entity: EntityDescription, from values: [PropertyValue],
                       newID: (ManagedObjectID) -> ManagedObjectID?) -> PropertyValue {
        let name = entity.slotName(slot)
        if let attribute = entity.attributesByName[name] {
            guard let from = sourceSlot[entity.index][slot], from < values.count else {
                return attribute.isTransient ? .null : attribute.defaultValue
            }
            var value = Self.widen(values[from], to: attribute.attributeType)
            if value.isNull, !attribute.isOptional { value = attribute.defaultValue }
            return value
        }
        guard let relationship = entity.relationshipsByName[name] else { return .null }
        let empty: PropertyValue = relationship.isToMany ? .objects([]) : .null
        guard let from = sourceSlot[entity.index][slot], from < values.count else { return empty }
        let members = values[from].objectIDs.compactMap(newID)
        if relationship.isToMany {
            let ordered = relationship.isOrdered ? members : members.sorted()
            return .objects(OrderedSet(ordered))
        }
        return members.first.map { .object($0) } ?? .null
    }

    /// A value of the source type as the destination type stores it (widening only).
    static func widen(_ value: PropertyValue, to type: AttributeType) -> PropertyValue {
        switch (value, type) {
        case (.integer(let number), .double): return .double(Double(number))
        case (.integer(let number), .decimal): return .decimal(Decimal(number))
        default: return value
        }
    }

    /// Whether a new relationship is filled from its inverse's records (``fillNewInverses(_:)``).
    var fillsNewInverses: Bool {
        for entity in destination.entities {
            for relationship in entity.relationships where !relationship.isTransient {
                guard let slot = entity.slotIndex(of: relationship.name), sourceSlot[entity.index][slot] != nil,
                      let inverseName = relationship.inverseName else { continue }
                let target = entity.destination(of: relationship)
                if let inverseSlot = target.slotIndex(of: inverseName), sourceSlot[target.index][inverseSlot] == nil,
                   let inverse = target.relationshipsByName[inverseName], !inverse.isTransient { return true }
            }
        }
        return false
    }

    /// A new relationship whose inverse came from the source has no values of its own:
    /// it is filled from the inverse, so both sides agree.
    private func fillNewInverses(_ records: inout [ManagedObjectID: [PropertyValue]]) {
        for entity in destination.entities {
            for relationship in entity.relationships where !relationship.isTransient {
                guard let slot = entity.slotIndex(of: relationship.name), sourceSlot[entity.index][slot] != nil,
                      let inverseName = relationship.inverseName else { continue }
                let target = entity.destination(of: relationship)
                guard let inverseSlot = target.slotIndex(of: inverseName),
                      sourceSlot[target.index][inverseSlot] == nil,
                      let inverse = target.relationshipsByName[inverseName], !inverse.isTransient else { continue }
                for id in records.keys.sorted() where id.entity.isKind(of: entity) {
                    guard let values = records[id], slot < values.count else { continue }
                    for member in values[slot].objectIDs where records[member] != nil {
                        let memberSlot = member.entity.slotIndex(of: inverseName) ?? inverseSlot
                        if inverse.isToMany {
                            if case .objects(var set) = records[member]![memberSlot] {
                                set.append(id)
                                records[member]![memberSlot] = .objects(set)
                            }
                        } else {
                            records[member]![memberSlot] = .object(id)
                        }
                    }
                }
            }
        }
    }

    /// Refuses records that break a uniqueness constraint of the destination that the
    /// source did not have.
    func checkUniqueness(_ records: [ManagedObjectID: [PropertyValue]]) throws {
        for entity in destination.entities where !entity.uniquenessConstraints.isEmpty {
            let old = sourceEntity[entity.index].map { Set(source.entities[$0].uniquenessConstraints.map { $0.joined(separator: ",") }) } ?? []
            for constraint in entity.uniquenessConstraints where !old.contains(constraint.joined(separator: ",")) {
                let slots = constraint.compactMap { entity.slotIndex(of: $0) }
                var seen: [[PropertyValue]: ManagedObjectID] = [:]
                for (id, values) in records.sorted(by: { $0.key < $1.key }) where id.entity.isKind(of: entity) {
                    let key = slots.map { values[$0] }
                    if key.contains(where: \.isNull) { continue }
                    if let other = seen[key] {
                        throw StrataError(.modelIncompatible,
                                          "The migration cannot be inferred: \(entity.name) gains the uniqueness constraint (\(constraint.joined(separator: ", "))), and \(other) and \(id) share the values \(key).",
                                          context: .init { $0.blocking = [entity.name] })
                    }
                    seen[key] = id
                }
            }
        }
    }
}
