import Foundation
import Testing
@testable import Strata

/// Many objects inserted in one flush and saved in one save: each reported at its place,
/// wherever it sorts (after every member, which finds its row at once, or among them, which
/// moves the rows found before), and every index path the controller answers afterwards
/// agrees with its results (docs/ARCHITECTURE.md, "Fetched results").
@Suite struct FetchedResultsManyInserts {
    /// Where the controller says each of its objects is, against where its snapshot has it.
    private func expectIndexPathsAgree(_ controller: FetchedResultsController<ManagedObject>, _ step: String) {
        for (s, section) in controller.snapshot().sections.enumerated() {
            for (item, id) in section.objectIDs.enumerated() {
                let object = controller.object(at: ResultIndexPath(item: item, section: s))
                #expect(object.objectID == id, "\(step): object at \(item), \(s)")
                #expect(controller.indexPath(for: object) == ResultIndexPath(item: item, section: s), "\(step): \(id)")
            }
        }
    }

    @Test func insertsAfterAndAmongTheMembersAreEachReportedAndFoundAgain() throws {
        let fixture = try FetchedResultsControllerKinds.Fixture()
        var added: [ManagedObject] = []
        // In each department: after every member ("z…", in insertion order), before ("a…")
        // and between members and earlier inserts ("l…", "n…").
        for round in 0..<6 {
            for department in ["A", "B", "C"] {
                added.append(try fixture.employee("z\(round)", in: department))
                added.append(try fixture.employee(round.isMultiple(of: 2) ? "a\(round)" : "n\(round)", in: department))
                added.append(try fixture.employee("l\(5 - round)", in: department))
            }
        }
        let inserted = try fixture.flush()
        #expect(inserted.insertions.count == added.count && inserted.moves.isEmpty && inserted.updates.isEmpty)
        #expect(inserted.insertedSections == [2])   // C had no members
        expectIndexPathsAgree(fixture.controller, "flush")

        try fixture.context.save()
        let saved = try #require(fixture.delegate.batches.first)
        #expect(fixture.delegate.batches.count == 1)
        #expect(Set(saved.updates.map(\.objectID)) == Set(added.map(\.objectID)))
        #expect(saved.updates.allSatisfy { !$0.objectID.isTemporaryID && $0.oldIndexPath == $0.newIndexPath })
        fixture.snapshot = try checkController(fixture.controller, delegate: fixture.delegate, previous: fixture.snapshot, step: "save")
        expectIndexPathsAgree(fixture.controller, "save")

        // Rows found before are stale now: delete among them, insert before them, move one.
        for object in added.prefix(9) { fixture.context.delete(object) }
        _ = try fixture.employee("b", in: "A")
        try added[20].setValue("a", forKey: "lastName")
        let mixed = try fixture.flush()
        #expect(mixed.deletions.count == 9 && mixed.insertions.count == 1)
        expectIndexPathsAgree(fixture.controller, "delete, insert and move")
    }
}
