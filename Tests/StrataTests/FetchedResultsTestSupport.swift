import Foundation
import Testing
@testable import Strata

// Helpers for the fetched results suites: a delegate that records each batch as a diff, an
// independent applier of diffs to snapshots, and the expected snapshot from a fresh fetch.

/// Records every batch the delegate hears as a `FetchedResultsDiff`, with its section names.
final class RecordingDelegate: FetchedResultsControllerDelegate {
    var batches: [FetchedResultsDiff] = []
    var insertedSectionNames: [[Int: String]] = []
    private var current: FetchedResultsDiff?
    private var names: [Int: String] = [:]
    private(set) var callOrder: [FetchedResultsChangeType] = []

    func controllerWillChangeContent(_ controller: FetchedResultsController<some ManagedObject>) {
        #expect(current == nil, "willChange twice")
        current = FetchedResultsDiff()
        names = [:]
    }

    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject, at indexPath: ResultIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
        let change = FetchedResultsItemChange(objectID: object.objectID, oldIndexPath: indexPath, newIndexPath: newIndexPath)
        callOrder.append(type)
        switch type {
        case .delete: current?.deletions.append(change)
        case .insert: current?.insertions.append(change)
        case .move: current?.moves.append(change)
        case .update: current?.updates.append(change)
        }
    }

    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        switch type {
        case .delete: current?.deletedSections.append(sectionIndex)
        case .insert:
            current?.insertedSections.append(sectionIndex)
            names[sectionIndex] = section.name
        default: Issue.record("section change \(type)")
        }
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) {
        if let current { batches.append(current) }
        insertedSectionNames.append(names)
        current = nil
    }
}

/// Applies a diff one step at a time, as its documentation says, checking every index.
/// Inserted sections take their names from `names` (or the target snapshot).
func applying(_ diff: FetchedResultsDiff, to old: FetchedResultsSnapshot, sectionNames names: [Int: String])
    -> FetchedResultsSnapshot?
{
    var sections = old.sections
    let removals = (diff.deletions + diff.moves).compactMap(\.oldIndexPath).sorted(by: >)
    guard Set(removals).count == removals.count else { Issue.record("a path removed twice: \(diff)"); return nil }
    for path in removals {
        guard sections.indices.contains(path.section), sections[path.section].objectIDs.indices.contains(path.item) else {
            Issue.record("removal \(path) out of range"); return nil
        }
        sections[path.section].objectIDs.remove(at: path.item)
    }
    for deletion in diff.deletions {
        guard let path = deletion.oldIndexPath, old.sections[path.section].objectIDs[path.item] == deletion.objectID else {
            Issue.record("deletion \(deletion) names another object"); return nil
        }
    }
    for index in diff.deletedSections.sorted(by: >) {
        guard sections.indices.contains(index), sections[index].objectIDs.isEmpty else {
            Issue.record("deleted section \(index) missing or not empty"); return nil
        }
        sections.remove(at: index)
    }
    for index in diff.insertedSections.sorted() {
        guard index <= sections.count, let name = names[index] else { Issue.record("inserted section \(index)"); return nil }
        sections.insert(.init(name: name, objectIDs: []), at: index)
    }
    let insertions = (diff.insertions + diff.moves).map { ($0.newIndexPath!, $0.objectID) }.sorted { $0.0 < $1.0 }
    for (path, id) in insertions {
        guard sections.indices.contains(path.section), path.item <= sections[path.section].objectIDs.count else {
            Issue.record("insertion \(path) out of range"); return nil
        }
        sections[path.section].objectIDs.insert(id, at: path.item)
    }
    for update in diff.updates {
        guard let path = update.newIndexPath, sections.indices.contains(path.section),
              sections[path.section].objectIDs.indices.contains(path.item) else { Issue.record("update \(update)"); return nil }
        sections[path.section].objectIDs[path.item] = update.objectID
    }
    return FetchedResultsSnapshot(sections: sections)
}

/// The snapshot a fresh fetch gives: the request's results grouped by section name, in the
/// order of their first objects.
func freshSnapshot(_ controller: FetchedResultsController<some ManagedObject>) throws -> FetchedResultsSnapshot {
    let context = controller.managedObjectContext
    var sections: [FetchedResultsSnapshot.Section] = []
    var index: [String: Int] = [:]
    for object in try context.fetch(controller.fetchRequest) {
        // An object whose section key cannot be read (a reference to a record another
        // context deleted) is left out, as the controller leaves it out.
        guard let name = try? controller.sectionName(of: object) else { continue }
        if let at = index[name] {
            sections[at].objectIDs.append(object.objectID)
        } else {
            index[name] = sections.count
            sections.append(.init(name: name, objectIDs: [object.objectID]))
        }
    }
    return FetchedResultsSnapshot(sections: sections)
}

/// Checks the controller against a fresh fetch and every recorded batch against the
/// snapshots before and after; returns the new snapshot.
func checkController(_ controller: FetchedResultsController<some ManagedObject>, delegate: RecordingDelegate, previous: FetchedResultsSnapshot,
                     step: String) throws -> FetchedResultsSnapshot {
    let now = controller.snapshot()
    let expected = try freshSnapshot(controller)
    if now != expected {
        Issue.record("\(step): controller \(describe(now)) vs fetch \(describe(expected))")
        throw StrataError(.invalidArgument, "stop at the first difference")
    }
    // Each batch must turn the snapshot before it into the one after; only the last "after"
    // is known, so the batches are applied in sequence and the end compared.
    var snapshot = previous
    for (diff, names) in zip(delegate.batches, delegate.insertedSectionNames) {
        guard let next = applying(diff, to: snapshot, sectionNames: names) else {
            Issue.record("\(step): diff does not apply: \(diff)"); break
        }
        snapshot = next
    }
    let applied = snapshot == now
    #expect(applied, "\(step): applying \(delegate.batches.count) diffs gives \(describe(snapshot)), controller has \(describe(now))")
    delegate.batches.removeAll()
    delegate.insertedSectionNames.removeAll()
    return now
}

func describe(_ snapshot: FetchedResultsSnapshot) -> String {
    snapshot.sections.map { "\($0.name.isEmpty ? "-" : $0.name): " + $0.objectIDs.map { "\($0.isTemporaryID ? "t" : "p")\($0.primaryKey)" }.joined(separator: ",") }
        .joined(separator: " | ")
}
