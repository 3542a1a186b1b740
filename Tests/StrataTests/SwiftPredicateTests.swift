import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/PREDICATES.md "Swift predicates": each `#Predicate` form gives the answer of the
/// equivalent string predicate, and Swift's own evaluation of the predicate, in memory
/// (unsaved objects), in SQL (saved) and after compaction; forms Strata cannot translate
/// are errors naming the construct.
@Suite struct SwiftPredicateTests {
    /// One form: the Swift predicate, the string predicate that means the same, and
    /// whether Swift's own evaluation can be compared (`!` throws on nil there).
    struct Case {
        let label: String
        let swift: Predicate<SwiftEmployee>
        let format: String
        var swiftEvaluates = true
    }

    static let floor: Int64 = 90_000

    static var cases: [Case] {
        [
            Case(label: "the issue's example", swift: #Predicate { $0.salary > 100_000 && $0.department?.name == "Research" },
                 format: "salary > 100000 AND department.name == 'Research'"),
            Case(label: "comparison", swift: #Predicate { $0.salary >= 95_000 }, format: "salary >= 95000"),
            Case(label: "captured value", swift: #Predicate { $0.salary > floor }, format: "salary > 90000"),
            Case(label: "or, not", swift: #Predicate { ($0.salary > 50_000 && !$0.active) || $0.lastName == "Carter" },
                 format: "(salary > 50000 AND NOT active == YES) OR lastName == 'Carter'"),
            Case(label: "arithmetic", swift: #Predicate { $0.salary * 2 + 1_000 > 200_000 }, format: "salary * 2 + 1000 > 200000"),
            Case(label: "subtraction, unary minus", swift: #Predicate { -$0.salary < -100_000 && $0.salary - 1 > 0 },
                 format: "-salary < -100000 AND salary - 1 > 0"),
            Case(label: "integer division", swift: #Predicate { $0.salary / 1_000 == 95 }, format: "salary >= 95000 AND salary < 96000"),
            Case(label: "remainder", swift: #Predicate { $0.salary % 20_000 == 0 }, format: "modulus:by:(salary, 20000) == 0"),
            Case(label: "optional chaining ==", swift: #Predicate { $0.department?.name == "Research" }, format: "department.name == 'Research'"),
            Case(label: "optional chaining != (two-valued, as Swift)", swift: #Predicate { $0.department?.name != "Research" },
                 format: "department == nil OR department.name != 'Research'"),
            Case(label: "two hops", swift: #Predicate { $0.manager?.department?.name == "Research" },
                 format: "manager.department.name == 'Research'"),
            Case(label: "flatMap", swift: #Predicate { $0.manager.flatMap { $0.salary > 100_000 } == true },
                 format: "manager.salary > 100000"),
            Case(label: "nil coalescing", swift: #Predicate { ($0.rating ?? 5) > 4 }, format: "rating == nil OR rating > 4"),
            Case(label: "nil test", swift: #Predicate { $0.rating == nil }, format: "rating == nil"),
            Case(label: "optional value ==", swift: #Predicate { $0.rating == 4.5 }, format: "rating == 4.5"),
            Case(label: "forced unwrap", swift: #Predicate { $0.department!.name == "Sales" }, format: "department.name == 'Sales'",
                 swiftEvaluates: false),
            Case(label: "conditional", swift: #Predicate { ($0.active ? $0.salary : 0) > 90_000 },
                 format: "active == YES AND salary > 90000"),
            Case(label: "conditional test", swift: #Predicate { $0.active ? $0.salary > 100_000 : $0.salary < 50_000 },
                 format: "(active == YES AND salary > 100000) OR (active == NO AND salary < 50000)"),
            Case(label: "starts(with:)", swift: #Predicate { $0.lastName.starts(with: "Ba") }, format: "lastName BEGINSWITH 'Ba'"),
            Case(label: "contains substring", swift: #Predicate { $0.lastName.contains("ar") }, format: "lastName CONTAINS 'ar'"),
            Case(label: "string count", swift: #Predicate { $0.lastName.count == 5 }, format: "length:(lastName) == 5"),
            Case(label: "IN a list", swift: #Predicate { ["Adams", "Ellis"].contains($0.lastName) }, format: "lastName IN {'Adams', 'Ellis'}"),
            Case(label: "closed range", swift: #Predicate { (80_000...100_000).contains($0.salary) }, format: "salary BETWEEN {80000, 100000}"),
            Case(label: "half-open range", swift: #Predicate { (80_000..<100_000).contains($0.salary) },
                 format: "salary >= 80000 AND salary < 100000"),
            Case(label: "contains(where:) over a to-many", swift: #Predicate { $0.projects.contains { $0.name == "Apollo" } },
                 format: "ANY projects.name == 'Apollo'"),
            Case(label: "allSatisfy", swift: #Predicate { $0.projects.allSatisfy { $0.name != "Zephyr" } },
                 format: "NONE projects.name == 'Zephyr'"),
            Case(label: "to-many count", swift: #Predicate { $0.projects.count >= 2 }, format: "projects.@count >= 2"),
            Case(label: "to-many isEmpty", swift: #Predicate { $0.directReports.isEmpty }, format: "directReports.@count == 0"),
            Case(label: "filter count", swift: #Predicate { $0.projects.filter { $0.name.starts(with: "A") }.count == 1 },
                 format: "SUBQUERY(projects, $p, $p.name BEGINSWITH 'A').@count == 1"),
            Case(label: "inherited key path", swift: #Predicate { $0.firstName == "Ada" || $0.lastName == "Dunbar" },
                 format: "firstName == 'Ada' OR lastName == 'Dunbar'"),
        ]
    }

    private func lastName(of object: ManagedObject) throws -> String {
        guard case .string(let name) = try object.value(forKey: "lastName") else { return "" }
        return name
    }

    /// The last names a typed and a string request find.
    private func answers(_ item: Case, in context: ManagedObjectContext) throws -> (typed: [String], string: [String]) {
        let typed = try context.fetch(FetchRequest<SwiftEmployee>(predicate: item.swift)).map(\.lastName).sorted()
        let string = try context.fetch(FetchRequest(entityName: "Employee", predicate: FetchPredicate(format: item.format)))
            .map(lastName(of:)).sorted()
        return (typed, string)
    }

    @Test func everyFormGivesTheStringPredicatesAnswerInMemoryInSQLAndAfterCompaction() throws {
        let model = try swiftTypedModel()
        // Unsaved: the fetch evaluates the predicates in memory on the pending objects.
        let unsaved = try DocumentStack(model: model, configuration: manualCompaction())
        let employees = try insertSwiftStaff(into: unsaved.context)
        // Saved, then compacted: a fresh context with no pending change, so SQL answers.
        let saved = try DocumentStack(model: model, configuration: manualCompaction())
        try insertSwiftStaff(into: saved.context)
        try saved.context.save()

        for item in Self.cases {
            let memory = try answers(item, in: unsaved.context)
            #expect(memory.typed == memory.string, "\(item.label): in memory")
            #expect(!memory.string.isEmpty && memory.string.count < employees.count, "\(item.label): the case separates the staff")
            if item.swiftEvaluates {
                let truth = try employees.filter { try item.swift.evaluate($0) }.map(\.lastName).sorted()
                #expect(memory.typed == truth, "\(item.label): Swift's own evaluation")
            }
            let stored = try answers(item, in: saved.newContext())
            #expect(stored.typed == memory.typed && stored.string == memory.string, "\(item.label): saved (SQL)")
        }
        try saved.store.compact()
        for item in Self.cases {
            let compacted = try answers(item, in: saved.newContext())
            let memory = try answers(item, in: unsaved.context)
            #expect(compacted.typed == memory.typed && compacted.string == memory.string, "\(item.label): compacted")
        }
    }

    @Test func theTranslationIsTheStringPredicatesTree() throws {
        #expect(try FetchPredicate(#Predicate<SwiftEmployee> { $0.salary > 100_000 && $0.manager?.lastName == nil })
                == FetchPredicate(format: "salary > 100000 AND manager.lastName == nil"))
        #expect(try FetchPredicate(#Predicate<SwiftEmployee> { $0.projects.count > 1 }) == FetchPredicate(format: "projects.@count > 1"))
        #expect(try FetchPredicate(#Predicate<SwiftEmployee> { -$0.salary < 0 }) == FetchPredicate(format: "-salary < 0"))
    }

    @Test func anUntranslatableFormIsAnErrorNamingTheConstruct() throws {
        let limits: [Int64] = [40_000, 95_000]
        let maximum = #Predicate<SwiftEmployee> { $0.salary == limits.max()! }
        let error = try #require(throws: StrataError.self) { try FetchPredicate(maximum) }
        #expect(error.code == .invalidArgument && error.context.key == "PredicateExpressions.SequenceMaximum")
        #expect(error.message.contains("PredicateExpressions.SequenceMaximum"))

        let first = #Predicate<SwiftEmployee> { $0.projects.first?.name == "Apollo" }
        let firstError = try #require(throws: StrataError.self) { try FetchPredicate(first) }
        #expect(firstError.code == .invalidArgument && firstError.message.contains("PredicateExpressions.KeyPath"))
    }

    @Test func aKeyPathTheClassDoesNotMapIsAnErrorNamingIt() throws {
        let unmapped = #Predicate<SwiftEmployee> { $0.displayName == "Ada Adams" }
        let error = try #require(throws: StrataError.self) { try FetchPredicate(unmapped) }
        #expect(error.code == .unknownKey && error.message.contains("SwiftEmployee"))
        #expect(error.context.entity == "Employee")
    }

    @Test func aTypedRequestReportsAnUntranslatablePredicateWhenItFetches() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        let limits: [Int64] = [40_000, 95_000]
        let request = FetchRequest<SwiftEmployee>(predicate: #Predicate { $0.salary == limits.min()! })
        #expect(request.predicate == nil)
        let error = try #require(throws: StrataError.self) { try stack.context.fetch(request) }
        #expect(error.context.key == "PredicateExpressions.SequenceMinimum")
        #expect(throws: StrataError.self) { try stack.context.count(for: request.copy()) }
        // Setting a predicate replaces the one that failed.
        request.predicate = try FetchPredicate(format: "salary > 100000")
        #expect(try stack.context.fetch(request).map(\.lastName).sorted() == ["Adams", "Dunbar", "Garcia"])
    }

    @Test func sortDescriptorsTranslateKeyPathAndOrder() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        try insertSwiftStaff(into: stack.context)
        try stack.context.save()
        let request = FetchRequest<SwiftEmployee>(predicate: #Predicate { $0.salary > 50_000 },
                                                  sortBy: [SortDescriptor(\.salary, order: .reverse)])
        #expect(request.sortDescriptors == [FetchSortDescriptor("salary", ascending: false)])
        let reader = stack.newContext()
        let typed = try reader.fetch(request).map(\.lastName)
        let string = try reader.fetch(FetchRequest(entityName: "Employee", predicate: FetchPredicate(format: "salary > 50000"),
                                                               sortDescriptors: [FetchSortDescriptor("salary", ascending: false)]))
            .map(lastName(of:))
        #expect(typed == string && typed.first == "Dunbar" && typed.count == 6)
        #expect(try FetchSortDescriptor(SortDescriptor(\SwiftEmployee.lastName, comparator: .lexical))
                == FetchSortDescriptor("lastName"))
        // A key path through a relationship is not one property: an error naming it.
        let through = FetchRequest<SwiftEmployee>(sortBy: [SortDescriptor(\.department?.name)])
        #expect(throws: StrataError.self) { try stack.context.fetch(through) }
    }
}
