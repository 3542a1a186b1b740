import Foundation
import StrataModels
import StrataTestSupport
import Testing

// The small task of issue 37 — an Employee/Department model, insert, fetch with a
// predicate, observe a list — as a program writes it with @Entity classes, #Predicate and
// typed requests. It is 17 lines, the model classes included (from `@Entity final class
// Department` to the fetch, blank lines and comments not counted; the test's scaffolding
// and checks are not the task's): SwiftData's version of the same task is about 17.

@Suite("The small task with declared entities")
struct SmallTaskTests {
    // Nested so as not to meet StaffModel's Employee and Department; a program declares
    // them at the top level.
    @Entity final class Department: ManagedObject {
        var name: String
        var employees: Set<Employee>
    }
    @Entity final class Employee: ManagedObject {
        var name: String
        var salary: Int64 = 0
        @Relationship(inverse: \Department.employees) var department: Department?
    }

    // The container's view context is the main queue's, as an application's UI is.
    @Test("Insert, fetch with #Predicate and observe a list, in as many lines as SwiftData") @MainActor
    func smallTask() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        // From here the task as a program writes it (the model classes above are its first 9 lines).
        let container = try PersistentContainer(name: "Staff", model: ManagedObjectModel(types: [Department.self, Employee.self]), url: url)
        let context = container.viewContext
        let list = FetchedResultsController(fetchRequest: FetchRequest<Employee>(sortBy: [SortDescriptor(\.name)]), managedObjectContext: context)
        try list.performFetch()
        let (research, ada, alan) = try (context.insert(Department.self), context.insert(Employee.self), context.insert(Employee.self))
        (research.name, ada.name, ada.salary, alan.name, alan.salary, research.employees) = ("Research", "Ada", 150_000, "Alan", 90_000, [ada, alan])
        try context.save()
        let rich = try context.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.salary > 100_000 && $0.department?.name == "Research" }))
        // The task's checks. A UI tracks the list's reads as this does.
        #expect(rich.map(\.name) == ["Ada"])
        let changed = Flag()
        withObservationTracking { _ = list.fetchedObjects } onChange: { changed.raise() }
        let grace = try context.insert(Employee.self)
        (grace.name, grace.department) = ("Grace", research)
        try context.save()
        #expect(changed.isRaised)
        #expect(list.fetchedObjects?.map(\.name) == ["Ada", "Alan", "Grace"])
        #expect(ada.department === research && research.employees.count == 3)
        // Reopened, the document answers the same.
        let reopened = try PersistentContainer(name: "Staff", model: ManagedObjectModel(types: [Department.self, Employee.self]), url: url)
        let again = try reopened.viewContext.fetch(FetchRequest<Employee>(predicate: #Predicate { $0.salary > 100_000 }))
        #expect(again.map(\.name) == ["Ada"])
    }
}

/// Set once from Observation's change handler.
private final class Flag: @unchecked Sendable {
    private(set) var isRaised = false
    func raise() { isRaised = true }
}
