import Foundation
import OrderedCollections

extension ManagedObjectContext {
    /// Computes the derived attributes of every object this save writes and of every object
    /// whose derivation reads one of them (found through the inverse relationships, loaded
    /// from the store when this context never fetched them), as Core Data does at save but
    /// also for the objects a changed one feeds (a department's `employees.@sum.salary`
    /// when only an employee's salary changed). Values are set as ordinary changes, so they
    /// are logged, saved and undone with the rest of the save.
    ///
    /// One `now()` for the whole save: every object saved together gets the same date.
    /// - Throws: `.validation` naming the object, attribute and derivation when the value
    ///   cannot be computed or does not fit the attribute's type.
    func computeDerivedValues() throws {
        let plan = model.derivationPlan
        guard !plan.isEmpty else { return }
        var targets: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
        for object in dirtySet.values where object.hasChanges || object.state.isDeleted {
            let index = object.entity.index
            if !object.state.isDeleted, !plan.derived[index].isEmpty {
                targets[ObjectIdentifier(object)] = object
            }
            for chain in plan.dependents[index] {
                for reached in try objects(reachedFrom: object, through: chain) where !reached.state.isDeleted {
                    targets[ObjectIdentifier(reached)] = reached
                }
            }
        }
        let now = Date()
        var problems: [StrataError.Problem] = []
        for object in targets.values {
            guard !object.state.isInvalid else { continue }
            do { try object.ensureLoaded() } catch { continue }  // deleted by another save: nothing to compute
            for (slot, expression) in plan.derived[object.entity.index] {
                let attribute = object.entity.attributes[object.entity.slotKindIndex(slot)]
                func problem(_ reason: String) {
                    problems.append(.init(entityName: object.entity.name, object: object.objectID.description,
                                          key: attribute.name, reason: "derivation '\(expression.predicateFormat)': \(reason)"))
                }
                let value: PropertyValue
                do {
                    value = try expression.replacingNow(with: now).value(with: object)
                } catch let error as StrataError {
                    problem(error.message)
                    continue
                }
                guard let coerced = ModelValueRules.coerce(value, to: attribute.attributeType) else {
                    problem("gives \(ModelValueRules.kindName(value)) \(value), which a \(attribute.attributeType.rawValue) attribute cannot hold")
                    continue
                }
                setPrimitive(object, slot: slot, coerced)
            }
        }
        if !problems.isEmpty {
            throw StrataError(.validation, "A derived value could not be computed (\(problems.count) problem\(problems.count == 1 ? "" : "s")).",
                              problems: problems)
        }
    }

    /// The objects reached from `object` along a chain of relationship names, by both the
    /// current and the last saved values (an employee moved out of a department still
    /// changes that department's aggregates).
    private func objects(reachedFrom object: ManagedObject, through chain: [String]) throws -> [ManagedObject] {
        var current: [ManagedObject] = [object]
        for key in chain {
            var next: OrderedDictionary<ObjectIdentifier, ManagedObject> = [:]
            for source in current {
                guard let slot = source.entity.slot(forKey: key), !source.state.isInvalid else { continue }
                do { try source.ensureLoaded() } catch { continue }
                for id in source.storage[slot].objectIDs + source.committedValue(slot: slot).objectIDs {
                    let reached = self.object(with: id)
                    next[ObjectIdentifier(reached)] = reached
                }
            }
            current = Array(next.values)
        }
        return current
    }
}

extension EntityDescription {
    /// The index in ``attributes`` of the attribute stored in `slot`.
    func slotKindIndex(_ slot: Int) -> Int {
        guard case .attribute(let index) = slotKinds[slot] else { preconditionFailure("slot \(slot) of \(name) is not an attribute") }
        return index
    }
}

extension ManagedObject {
    /// The error for setting a derived attribute.
    func derivedIsReadOnly(_ index: Int) -> StrataError {
        let attribute = entity.attributes[index]
        let derivation = attribute.derivation?.predicateFormat ?? ""
        return StrataError(
            .invalidArgument,
            "\(entity.name).\(attribute.name) is derived from '\(derivation)' and computed when the context saves; it cannot be set.",
            context: ["entity": entity.name, "key": attribute.name, "derivation": derivation])
    }
}
