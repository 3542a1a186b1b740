import Foundation
import StrataModels
import StrataTestSupport
import Testing

// The small task of issue 37 — an Employee/Department model, insert, fetch with a
// predicate, observe a list — as a program writes it with @Entity classes.

@Entity final class Team: ManagedObject {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Member.team) var members: Set<Member>
}

@Entity final class Member: ManagedObject {
    var name: String
    var salary: Int64 = 0
    var team: Team?
}

@Suite("The small task with declared entities")
struct SmallTaskTests {
    // The container's view context is the main queue's, as an application's UI is.
    @Test("Insert, fetch with a predicate and observe a list") @MainActor
    func smallTask() throws {
        let directory = try TemporaryDirectory()
        // From here the task as a program writes it.
        let model = try ManagedObjectModel(types: [Team.self, Member.self])
        let container = try PersistentContainer(name: "Staff", model: model, url: directory.file())
        let context = container.viewContext
        let research = try context.insert(Team.self)
        research.name = "Research"
        let list = FetchedResultsController(fetchRequest: FetchRequest<Member>(sortDescriptors: [FetchSortDescriptor("name")]),
                                            managedObjectContext: context)
        try list.performFetch()
        let changed = Flag()
        withObservationTracking { _ = list.fetchedObjects } onChange: { changed.raise() }
        for (name, salary) in [("Ada", 150_000), ("Alan", 90_000)] {
            let member = try context.insert(Member.self)
            (member.name, member.salary, member.team) = (name, Int64(salary), research)
        }
        try context.save()
        let rich = try context.fetch(FetchRequest<Member>(predicate: try FetchPredicate(format: "salary > %d", 100_000)))
        // The task's checks.
        #expect(rich.map(\.name) == ["Ada"])
        #expect(changed.isRaised)
        #expect(list.fetchedObjects?.map(\.name) == ["Ada", "Alan"])
    }
}

/// Set once from Observation's change handler.
private final class Flag: @unchecked Sendable {
    private(set) var isRaised = false
    func raise() { isRaised = true }
}
