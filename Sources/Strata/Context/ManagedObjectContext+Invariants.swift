import Foundation

extension ManagedObjectContext {
    /// Every inconsistency of the registered graph: a relationship whose inverse does not
    /// point back, a destination that is deleted while the rule should have removed it, a
    /// change set that disagrees with the objects' flags. Empty when all holds.
    ///
    /// Call after `processPendingChanges()`; tests run it after every step, and builds with
    /// `STRATA_INVARIANTS` check it after every save.
    func graphInvariantViolations() -> [String] {
        var problems: [String] = []
        let live = registry.values.compactMap(\.object).filter { !$0.state.isInvalid && !$0.state.isFault && !$0.state.isDeleted }
        for object in live {
            for relationship in object.entity.relationships {
                for id in object.storage[relationship.slot].objectIDs {
                    guard let destination = registeredObject(for: id) ?? (try? existingObject(with: id)) else {
                        problems.append("\(object.objectID).\(relationship.name) points at missing \(id)")
                        continue
                    }
                    if destination.state.isDeleted {
                        let inverseRule = relationship.inverseSlot.flatMap { slot -> DeleteRule? in
                            guard case .relationship(let index) = destination.entity.slotKinds[slot] else { return nil }
                            return destination.entity.relationships[index].deleteRule
                        }
                        if inverseRule != .noAction && inverseRule != .deny {
                            problems.append("\(object.objectID).\(relationship.name) still points at deleted \(id)")
                        }
                        continue
                    }
                    guard let inverseSlot = relationship.inverseSlot else { continue }
                    if destination.state.isFault { try? fireFault(destination) }
                    if !destination.storage[inverseSlot].objectIDs.contains(object.objectID) {
                        problems.append(
                            "\(object.objectID).\(relationship.name) → \(id), but \(id).\(destination.entity.slotNames[inverseSlot]) does not point back")
                    }
                }
            }
        }
        for object in dirtySet.values where !object.state.inDirtySet {
            problems.append("\(object.objectID) is in the dirty set without its flag")
        }
        if !flushSet.isEmpty { problems.append("\(flushSet.count) objects still await a flush") }
        return problems
    }
}
