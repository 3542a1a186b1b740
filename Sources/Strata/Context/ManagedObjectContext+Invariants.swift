import Foundation

extension ManagedObjectContext {
    /// Every inconsistency of the registered graph: a relationship whose inverse does not
    /// point back, a destination that is deleted while the rule should have removed it, a
    /// change set that disagrees with the objects' flags. Empty when all holds.
    ///
    /// Call after `processPendingChanges()`; tests run it after every step, and builds with
    /// `STRATA_INVARIANTS` check it at the end of every save (docs/INVARIANTS.md).
    ///
    /// - Parameters:
    ///   - loading: whether to load destinations that are not registered or are faults.
    ///     The automatic check passes false: a check must not change what the context
    ///     holds (it skips such destinations instead).
    ///   - scope: when given, only these objects, and relationships among them whose ends
    ///     were read from the store at one time (or inserted here), are checked. After a
    ///     save, the objects it wrote: both ends of every relationship this context
    ///     changed. Objects read at different times (a fault fired after another
    ///     context's save) may disagree legitimately, as in Core Data, until refreshed.
    /// - Complexity: O(objects checked × their relationships' members).
    func graphInvariantViolations(loading: Bool = true, scope: [ManagedObject]? = nil) -> [String] {
        var problems: [String] = []
        let inScope = scope.map { Set($0.map(ObjectIdentifier.init)) }
        let candidates = scope ?? registry.values.compactMap(\.object)
        let live = candidates.filter { !$0.state.isInvalid && !$0.state.isFault && !$0.state.isDeleted }
        for object in live {
            for relationship in object.entity.relationships {
                for id in object.storage[relationship.slot].objectIDs {
                    var found = registeredObject(for: id) ?? (loading ? try? existingObject(with: id) : nil)
                    if let inScope, let destination = found {
                        // Outside the scope, or read at another time (0: inserted here).
                        let generations = (object.loadGeneration, destination.loadGeneration)
                        if !inScope.contains(ObjectIdentifier(destination))
                            || (generations.0 != 0 && generations.1 != 0 && generations.0 != generations.1) {
                            found = nil
                        }
                    }
                    guard let destination = found else {
                        if loading && scope == nil { problems.append("\(object.objectID).\(relationship.name) points at missing \(id)") }
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
                    if destination.state.isFault {
                        guard loading else { continue }
                        try? fireFault(destination)
                    }
                    // A membership test, not `objectIDs.contains`: that copies a to-many of
                    // 100,000 members for each of them.
                    let pointsBack = switch destination.storage[inverseSlot] {
                    case .object(let back): back == object.objectID
                    case .objects(let members): members.contains(object.objectID)
                    default: false
                    }
                    if !pointsBack {
                        problems.append(
                            "\(object.objectID).\(relationship.name) → \(id), but \(id).\(destination.entity.slotNames[inverseSlot]) does not point back")
                    }
                }
            }
        }
        problems += dirtySet.violations
        if !flushSet.isEmpty { problems.append("\(flushSet.count) objects still await a flush") }
        return problems
    }

    #if STRATA_INVARIANTS
    /// Stops the process when the objects a save wrote are inconsistent among themselves
    /// (at the end of every save), without loading anything.
    ///
    /// Skipped when a refresh kept pending changes over newer stored values since the last
    /// save (``refresh(_:mergeChanges:)``, merges): the kept values, a to-many among them,
    /// may name what the store's newer values moved elsewhere, as in Core Data.
    func checkGraphInvariants(of saved: [ManagedObject]) {
        defer { mergedOverPendingChanges = false }
        guard !mergedOverPendingChanges else { return }
        checkInvariants(of: "object graph", graphInvariantViolations(loading: false, scope: saved))
    }
    #endif
}
