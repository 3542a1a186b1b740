import Foundation

// How a change reaches the results: the objects it may concern are re-evaluated in memory,
// taken out of their sections and put back where they now belong (binary search by the
// fetch's comparator), and the diff is worked out from their places before and after.
extension FetchedResultsController {
    /// Where an object sorts and in which section, or nil when it does not match.
    typealias Placement = (keys: [PropertyValue], section: String)

    typealias Touch = FetchedResultsTouch

    // MARK: Entry points (on the context's queue)

    /// A flush, undo, redo, merge or conflict resolution changed these objects.
    func contextDidChange(_ ids: Set<ManagedObjectID>) {
        guard hasFetched else { return }
        let (objects, changed) = candidates(for: ids, loading: false)
        process(objects, changed: changed, reportingUnchanged: true)
    }

    /// A merge finished: records it inserted, or updated without an object loaded here, may
    /// now match. Objects whose place did not change were reported by ObjectsDidChange, if at all.
    func contextDidMerge(_ changes: SaveChanges) {
        guard hasFetched else { return }
        var ids = changes.inserted.union(changes.updated)
        for id in changes.deleted where memberByID[id] != nil { ids.insert(id) }
        let (objects, changed) = candidates(for: ids, loading: true)
        process(objects, changed: changed, reportingUnchanged: false)
    }

    /// A save made temporary IDs permanent: the order of records equal on every sort key
    /// depends on IDs, and snapshots name objects by ID, so those objects are placed again
    /// (and reported as updated).
    func contextDidSave(inserted: Set<ManagedObjectID>) {
        guard hasFetched else { return }
        var changed: [ManagedObject] = []
        var renamed = Changes()
        for id in inserted {
            guard let object = managedObjectContext.registeredObject(for: id),
                  let member = members[ObjectIdentifier(object)], member.entry.id != id else { continue }
            // Almost always the new ID sorts where the old one did (permanent keys are handed
            // out in insertion order, above every existing one): rename the entry in place,
            // without taking it out and putting it back.
            guard let section = sectionsByName[member.section], let row = row(of: member),
                  let index = sectionIndex[member.section] else {
                changed.append(object)
                continue
            }
            var entry = section.entries[row]
            entry.id = id
            let entries = section.entries
            guard row == 0 || compare(entries[row - 1], entry) < 0,
                  row + 1 == entries.count || compare(entry, entries[row + 1]) < 0 else {
                changed.append(object)
                continue
            }
            section.entries[row] = entry
            members[ObjectIdentifier(object)]?.entry = entry
            memberByID[member.entry.id] = nil
            memberByID[id] = ObjectIdentifier(object)
            let path = ResultIndexPath(item: row, section: index)
            renamed.updates.append(Reported(change: FetchedResultsItemChange(objectID: id, oldIndexPath: path, newIndexPath: path),
                                            object: object))
        }
        renamed.updates.sort { $0.change.newIndexPath! < $1.change.newIndexPath! }
        report(renamed)
        process(changed, reportingUnchanged: true)
    }

    // MARK: Which objects

    /// The to-one relationships of the entity that the request's key paths go through.
    private var followedToOnes: [RelationshipDescription] {
        guard let entity else { return [] }
        let paths = fetchRequest.sortDescriptors.map(\.keyPath) + [sectionNameKeyPath].compactMap { $0 }
        let predicate = fetchRequest.predicate?.predicateFormat ?? ""
        return entity.relationships.filter { relationship in
            !relationship.isToMany
                && (paths.contains { $0.hasPrefix(relationship.name + ".") } || predicate.contains(relationship.name))
        }
    }

    private func wanted(_ candidate: EntityDescription) -> Bool {
        guard let entity else { return false }
        return fetchRequest.includesSubentities ? candidate.isKind(of: entity) : candidate === entity
    }

    /// The objects the changed IDs concern: members, registered objects of the entity (with
    /// `loading`, faults for unregistered ones), and when the request reads related objects,
    /// the objects of the entity related to a changed object. `changed` holds those the IDs
    /// name themselves: only they can be updates (docs/SEMANTICS.md §6).
    private func candidates(for ids: Set<ManagedObjectID>, loading: Bool)
        -> (objects: [ManagedObject], changed: Set<ObjectIdentifier>)
    {
        let context = managedObjectContext
        var result: [ManagedObject] = []
        func add(_ id: ManagedObjectID, loading: Bool = loading) {
            if let key = memberByID[id], let member = members[key] {
                result.append(member.entry.object)
            } else if wanted(id.entity) {
                if let object = context.registeredObject(for: id) {
                    result.append(object)
                } else if loading && !id.isTemporaryID {
                    result.append(context.object(with: id))
                }
            }
        }
        for id in ids { add(id) }
        let changed = Set(result.map(ObjectIdentifier.init))
        guard readsRelated else { return (result, changed) }
        // Objects whose key paths go through a to-one to a changed object: asked of the
        // context (store and pending changes), not read from the changed object's inverse
        // to-many, which a merge may leave stale.
        for relationship in followedToOnes {
            guard let destination = try? context.model.entity(named: relationship.destinationEntityName) else { continue }
            for id in ids where id.entity.isKind(of: destination) {
                let request = FetchRequest<ManagedObject>(entityName: entity?.name ?? "",
                                           predicate: try? FetchPredicate(format: "%K == %@", .key(relationship.name), .value(.object(id))))
                request.includesSubentities = fetchRequest.includesSubentities
                for related in (try? context.fetchObjectIDs(request)) ?? [] { add(related, loading: true) }
            }
        }
        for id in ids {
            guard let object = context.registeredObject(for: id) ?? (loading && !id.isTemporaryID ? context.object(with: id) : nil),
                  !object.state.isInvalid, (try? object.ensureLoaded()) != nil else { continue }
            for relationship in object.entity.relationships where relationship.slot < object.storage.count {
                for related in object.storage[relationship.slot].objectIDs { add(related) }
            }
        }
        return (result, changed)
    }

    /// Whether the object matches now, and where it sorts. An object whose values cannot
    /// be read (its record is gone) or that the predicate cannot evaluate does not match.
    func placement(of object: ManagedObject) -> Placement? {
        guard object.context === managedObjectContext, !object.state.isInvalid, !object.state.isDeleted,
              wanted(object.entity), object is ResultType else { return nil }
        do {
            if let predicate = fetchRequest.predicate, try !predicate.evaluate(with: object) { return nil }
            return (try FetchSortDescriptor.sortKeys(of: object, for: fetchRequest.sortDescriptors), try sectionName(of: object))
        } catch {
            return nil
        }
    }

    // MARK: Applying

    /// Re-places the objects and reports what changed. With `reportingUnchanged: false`,
    /// objects whose place and ID are as before are left out. Only objects in `changed`
    /// (all when nil) are reported as updates: the others were re-placed because a related
    /// object changed, and when they did not move relative to the rest, nothing happened to
    /// them (docs/SEMANTICS.md §6).
    /// - Complexity: O(k log n) comparisons for k objects, plus O(sections).
    func process(_ candidates: [ManagedObject], changed: Set<ObjectIdentifier>? = nil, reportingUnchanged: Bool) {
        var seen = Set<ObjectIdentifier>()
        var touches: [Touch] = []
        var placements: [Placement?] = []
        for object in candidates where seen.insert(ObjectIdentifier(object)).inserted {
            let member = members[ObjectIdentifier(object)]
            let placement = placement(of: object)
            if member == nil && placement == nil { continue }
            if !reportingUnchanged, let member, let placement, member.section == placement.section,
               member.entry.id == object.objectID, member.entry.keys == placement.keys { continue }
            var touch = Touch(object: object, oldID: member?.entry.id)
            if let member, let row = row(of: member) {
                touch.oldSection = member.section
                touch.oldRow = row
            }
            touches.append(touch)
            placements.append(placement)
        }
        guard !touches.isEmpty else { return }
        let oldNames = sectionList.map(\.name)

        for touch in touches {
            let key = ObjectIdentifier(touch.object)
            guard let member = members.removeValue(forKey: key) else { continue }
            memberByID[member.entry.id] = nil
            if let row = row(of: member) { sectionsByName[member.section]?.entries.remove(at: row) }
        }
        // Put back in ID order, not the notice's set order: new objects' temporary IDs follow
        // their insertion, which is usually their sort order too (ascending keys, dates), so
        // each lands after the ones put before it and their rows stay as found (rowHint).
        // The order changes no place and no reported change.
        let order = touches.indices.sorted { touches[$0].object.objectID < touches[$1].object.objectID }
        for index in order {
            // A placement is only given to a `ResultType` (placement(of:)).
            guard let placement = placements[index] else { continue }
            let touch = touches[index]
            let object = touch.object
            let entry = Entry(object: object, id: object.objectID, keys: placement.keys)
            let section = sectionsByName[placement.section] ?? {
                let made = SectionEntries(name: placement.section)
                sectionsByName[placement.section] = made
                sectionList.append(made)
                return made
            }()
            let row = lowerBound(entry, in: section.entries)
            section.entries.insert(entry, at: row)
            members[ObjectIdentifier(touch.object)] = Member(entry: entry, section: placement.section, rowHint: row)
            memberByID[entry.id] = ObjectIdentifier(touch.object)
        }
        if sectionList.contains(where: \.entries.isEmpty) {
            for section in sectionList where section.entries.isEmpty { sectionsByName[section.name] = nil }
            sectionList.removeAll { $0.entries.isEmpty }
        }
        // Sections come in the order of their first objects.
        if !zip(sectionList, sectionList.dropFirst()).allSatisfy({ compare($0.entries[0], $1.entries[0]) < 0 }) {
            sectionList.sort { compare($0.entries[0], $1.entries[0]) < 0 }
        }
        reindexSections()
        for index in touches.indices {
            guard let member = members[ObjectIdentifier(touches[index].object)], let row = row(of: member) else { continue }
            touches[index].newSection = member.section
            touches[index].newRow = row
        }
        report(diff(touches, oldNames: oldNames, changed: changed))
    }

    typealias Reported = FetchedResultsReported
    typealias Changes = FetchedResultsChangeList

    /// The diff from the touched objects' places before and after.
    private func diff(_ touches: [Touch], oldNames: [String], changed: Set<ObjectIdentifier>?) -> Changes {
        var changes = Changes()
        let oldIndex = Dictionary(uniqueKeysWithValues: oldNames.enumerated().map { ($1, $0) })
        let newNames = sectionList.map(\.name)

        // Sections: surviving ones keep their order, except those outside the longest run
        // in order (only when the sort descriptors do not group the sections), which are
        // deleted and inserted again.
        let surviving = oldNames.filter { sectionIndex[$0] != nil }
        let kept = Set(Self.longestIncreasing(surviving.map { sectionIndex[$0]! }).map { surviving[$0] })
        for (index, name) in oldNames.enumerated().reversed() where !kept.contains(name) {
            changes.deletedSections.append((index, name))
        }
        for (index, name) in newNames.enumerated() where !kept.contains(name) { changes.insertedSections.append(index) }

        // Objects: rows among the untouched ones decide what moved.
        var oldRows: [String: [Int]] = [:], newRows: [String: [Int]] = [:]
        for touch in touches {
            if let section = touch.oldSection { oldRows[section, default: []].append(touch.oldRow) }
            if let section = touch.newSection { newRows[section, default: []].append(touch.newRow) }
        }
        for key in oldRows.keys { oldRows[key]!.sort() }
        for key in newRows.keys { newRows[key]!.sort() }
        var candidates: [UntouchedGap: [Int]] = [:]
        func change(_ touch: Touch, old: Bool, new: Bool) -> Reported {
            Reported(change: FetchedResultsItemChange(
                objectID: touch.object.objectID,
                oldIndexPath: old ? ResultIndexPath(item: touch.oldRow, section: oldIndex[touch.oldSection!]!) : nil,
                newIndexPath: new ? ResultIndexPath(item: touch.newRow, section: sectionIndex[touch.newSection!]!) : nil),
                object: touch.object)
        }
        for (position, touch) in touches.enumerated() {
            switch (touch.oldSection, touch.newSection) {
            case (nil, nil): continue
            case (_?, nil):
                var reported = change(touch, old: true, new: false)
                if let id = touch.oldID { reported.change.objectID = id }
                changes.deletions.append(reported)
            case (nil, _?): changes.insertions.append(change(touch, old: false, new: true))
            case (let old?, let new?):
                guard old == new, kept.contains(old) else {
                    changes.moves.append(change(touch, old: true, new: true))
                    continue
                }
                let before = touch.oldRow - Self.countBelow(touch.oldRow, in: oldRows[old]!)
                let after = touch.newRow - Self.countBelow(touch.newRow, in: newRows[new]!)
                if before == after {
                    candidates[UntouchedGap(section: old, untouchedBefore: before), default: []].append(position)
                } else {
                    changes.moves.append(change(touch, old: true, new: true))
                }
            }
        }
        // Objects that stay between the same untouched neighbours are updates when they keep
        // their order among themselves and changed themselves; otherwise they all move.
        for group in candidates.values {
            let byOld = group.sorted { touches[$0].oldRow < touches[$1].oldRow }
            let byNew = group.sorted { touches[$0].newRow < touches[$1].newRow }
            let inPlace = byOld == byNew
            for position in group {
                let reported = change(touches[position], old: true, new: true)
                if !inPlace {
                    changes.moves.append(reported)
                } else if changed?.contains(ObjectIdentifier(touches[position].object)) ?? true
                            || touches[position].oldID != touches[position].object.objectID {
                    changes.updates.append(reported)
                }
            }
        }
        // The untouched objects of sections deleted and inserted again move with them.
        for name in newNames where !kept.contains(name) && oldIndex[name] != nil {
            changes.moves += untouchedMoves(in: name, touches: touches, touchedOldRows: oldRows[name] ?? [],
                                            oldSection: oldIndex[name]!)
        }
        changes.deletions.sort { $0.change.oldIndexPath! > $1.change.oldIndexPath! }
        changes.insertions.sort { $0.change.newIndexPath! < $1.change.newIndexPath! }
        changes.moves.sort { $0.change.newIndexPath! < $1.change.newIndexPath! }
        changes.updates.sort { $0.change.newIndexPath! < $1.change.newIndexPath! }
        return changes
    }

    /// Moves of a reordered section's untouched objects: their old rows skip the rows the
    /// touched objects had.
    private func untouchedMoves(in name: String, touches: [Touch], touchedOldRows: [Int], oldSection: Int) -> [Reported] {
        guard let section = sectionsByName[name], let newSection = sectionIndex[name] else { return [] }
        let touched = Set(touches.map { ObjectIdentifier($0.object) })
        var moves: [Reported] = []
        var oldRow = 0, skip = 0
        for (newRow, entry) in section.entries.enumerated() where !touched.contains(ObjectIdentifier(entry.object)) {
            while skip < touchedOldRows.count && touchedOldRows[skip] == oldRow {
                skip += 1
                oldRow += 1
            }
            moves.append(Reported(change: FetchedResultsItemChange(
                objectID: entry.object.objectID, oldIndexPath: ResultIndexPath(item: oldRow, section: oldSection),
                newIndexPath: ResultIndexPath(item: newRow, section: newSection)), object: entry.object))
            oldRow += 1
        }
        return moves
    }

    /// Tells the delegate and the stream listeners.
    func report(_ changes: Changes) {
        var diff = FetchedResultsDiff()
        diff.deletedSections = changes.deletedSections.map(\.index)
        diff.insertedSections = changes.insertedSections
        diff.deletions = changes.deletions.map(\.change)
        diff.insertions = changes.insertions.map(\.change)
        diff.moves = changes.moves.map(\.change)
        diff.updates = changes.updates.map(\.change)
        guard !diff.isEmpty else { return }
        if let delegate {
            delegate.controllerWillChangeContent(self)
            for item in changes.deletions {
                delegate.controller(self, didChange: item.object, at: item.change.oldIndexPath, for: .delete, newIndexPath: nil)
            }
            for (index, name) in changes.deletedSections {
                delegate.controller(self, didChange: FetchedResultsSection(name: name, objects: []), atSectionIndex: index, for: .delete)
            }
            for index in changes.insertedSections {
                let section = sectionList[index]
                delegate.controller(self, didChange: FetchedResultsSection(name: section.name, objects: section.entries.map(\.object)),
                                    atSectionIndex: index, for: .insert)
            }
            for item in changes.insertions {
                delegate.controller(self, didChange: item.object, at: nil, for: .insert, newIndexPath: item.change.newIndexPath)
            }
            for item in changes.moves {
                delegate.controller(self, didChange: item.object, at: item.change.oldIndexPath, for: .move,
                                    newIndexPath: item.change.newIndexPath)
            }
            for item in changes.updates {
                delegate.controller(self, didChange: item.object, at: item.change.oldIndexPath, for: .update,
                                    newIndexPath: item.change.newIndexPath)
            }
            delegate.controllerDidChangeContent(self)
        }
        publish(diff)
    }

    // MARK: Small algorithms

    /// How many of the sorted values are below `value`.
    static func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The positions of a longest strictly increasing subsequence.
    /// - Complexity: O(n log n).
    static func longestIncreasing(_ values: [Int]) -> [Int] {
        var tails: [Int] = []              // positions, by length - 1
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result: [Int] = []
        var position = tails.last ?? -1
        while position >= 0 {
            result.append(position)
            position = previous[position]
        }
        return result.reversed()
    }
}

/// A place between untouched neighbours in a section: objects there that keep their order
/// are updates, not moves (a type of the file, as a generic function cannot nest one).
private struct UntouchedGap: Hashable {
    let section: String
    let untouchedBefore: Int
}
