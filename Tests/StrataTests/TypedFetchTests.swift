import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/SEMANTICS.md "Typed access": typed requests, results controllers, object lookups
/// and batch requests hand back or take the model's classes, and a caller's mistake is an
/// error, never a trap.
@Suite struct TypedFetchTests {
    @Test func aTypedRequestNamesTheClassesEntityAndReturnsItsInstances() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        try stack.context.save()
        let request = FetchRequest<SwiftEmployee>(sortDescriptors: [FetchSortDescriptor("lastName")])
        #expect(request.entityName == "Employee")
        let reader = stack.newContext()
        let employees: [SwiftEmployee] = try reader.fetch(request)
        #expect(employees.map(\.lastName) == ["Adams", "Baker", "Barrow", "Carter", "Dunbar", "Ellis", "Garcia"])
        // The untyped form still infers ManagedObject.
        let untyped = FetchRequest(entityName: "Employee")
        #expect(try stack.context.fetch(untyped).count == 7)
        // A request through the superclass gets the subclass's instances.
        #expect(try stack.context.fetch(FetchRequest<SwiftPerson>()).allSatisfy { $0 is SwiftEmployee })
    }

    @Test func aResultOfAnotherClassIsATypeMismatchNamingIt() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        let error = try #require(throws: StrataError.self) {
            try stack.context.fetch(FetchRequest<SwiftDepartment>(entityName: "Employee"))
        }
        #expect(error.code == .typeMismatch && error.context.entity == "Employee")
    }

    @Test func objectWithAsReturnsTheClassOrThrowsWithoutRegisteringAnything() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        let staff = try insertSwiftStaff(into: stack.context)
        try stack.context.save()
        let id = staff[0].objectID
        let context = stack.newContext()
        #expect(try context.existingObject(with: id, as: SwiftEmployee.self).lastName == "Adams")
        let other = stack.newContext()
        let error = try #require(throws: StrataError.self) { try other.object(with: id, as: SwiftDepartment.self) }
        #expect(error.code == .typeMismatch && error.context.object == id.description)
        #expect(other.registeredObject(for: id) == nil)
        #expect(try other.object(with: id, as: SwiftPerson.self) is SwiftEmployee)
    }

    @Test func aTypedResultsControllerFollowsChangesWithTypedObjects() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        let request = FetchRequest<SwiftEmployee>(predicate: #Predicate { $0.salary > 100_000 },
                                                  sortBy: [SortDescriptor(\.salary)])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: stack.context)
        try controller.performFetch()
        #expect(controller.fetchedObjects?.map(\.lastName) == ["Garcia", "Adams", "Dunbar"])
        let newcomer = try stack.context.insert(SwiftEmployee.self)
        (newcomer.firstName, newcomer.lastName, newcomer.salary) = ("Hal", "Hughes", 200_000)
        stack.context.processPendingChanges()
        let last: SwiftEmployee = controller.object(at: ResultIndexPath(item: 3, section: 0))
        #expect(last.lastName == "Hughes")
    }

    @Test func batchRequestsTakeTheClassAndKeyPaths() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        try stack.context.save()
        let raise = try BatchUpdateRequest(for: SwiftEmployee.self, predicate: FetchPredicate(#Predicate<SwiftEmployee> { $0.salary < 50_000 }),
                                           propertiesToUpdate: [\SwiftEmployee.salary: .integer(55_000)])
        #expect(raise.entityName == "Employee" && raise.propertiesToUpdate.keys.sorted() == ["salary"])
        #expect(try stack.context.executeBatch(raise).count == 1)
        let reader = stack.newContext()
        let carter = try reader.fetch(FetchRequest<SwiftEmployee>(predicate: #Predicate { $0.lastName == "Carter" }))
        #expect(carter.map(\.salary) == [55_000])
        let error = try #require(throws: StrataError.self) {
            try BatchUpdateRequest(for: SwiftEmployee.self, propertiesToUpdate: [\SwiftEmployee.displayName: .string("x")])
        }
        #expect(error.code == .unknownKey)
        let remove = BatchDeleteRequest(for: SwiftEmployee.self, predicate: try FetchPredicate(#Predicate<SwiftEmployee> { !$0.active }))
        #expect(remove.entityName == "Employee")
        #expect(try stack.context.executeBatch(remove).count == 3)
    }

    @Test func aTypedSubscriptWithAnUnknownKeyRecordsAnErrorThatTheNextSaveThrows() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        let staff = try insertSwiftStaff(into: stack.context)
        let nickname = AttributeKey<String>("nickname")
        #expect(staff[0][nickname] == "")
        staff[1][nickname] = "Bobo"
        #expect(stack.context.typedAccessErrors.count == 2)
        #expect(stack.context.typedAccessErrors.allSatisfy { $0.code == .unknownKey })
        let error = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(error.code == .unknownKey && error.message.contains("1 more"))
        // Reported once: the next save goes through.
        #expect(stack.context.typedAccessErrors.isEmpty)
        try stack.context.save()
        #expect(try stack.newContext().count(for: FetchRequest<SwiftEmployee>()) == 7)
    }
}
