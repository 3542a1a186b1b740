import Foundation
import Testing
import Strata

/// docs/PREDICATES.md §3, "Where Strata differs from Foundation": cases rebuilt from other
/// projects' NSPredicate tests, each matching Foundation or asserting the documented
/// deviation.
@Suite struct PredicateFoundationParity {
    private var department: PredicateRow {
        var row = PredicateRow(["name": "Sales"])
        row["employees"] = .objects([PredicateRow(["salary": 5, "name": "a"]), PredicateRow(["salary": 9, "name": "b"])])
        return row
    }

    @Test func aKeyMissingFromARowIsNilAsInADictionary() throws {
        let row = PredicateRow(["a": 1])
        #expect(try FetchPredicate(format: "missing == nil").evaluate(with: row))
        #expect(try !FetchPredicate(format: "missing == 1").evaluate(with: row))
        // As any NULL in Strata (docs/SEMANTICS.md §1), it is not unequal to 1 either.
        #expect(try !FetchPredicate(format: "missing != 1").evaluate(with: row))
    }

    @Test func selfOfPlainValuesIsTheValueAsInKeyValueCoding() throws {
        #expect(try FetchPredicate(format: "{1, 2, 3}.@max.#self == 3").evaluate(with: department))
        #expect(try FetchPredicate(format: "employees.salary.@max.#self == 9").evaluate(with: department))
        #expect(try FetchPredicate(format: "employees.salary.@min.self == 5").evaluate(with: department))
    }

    @Test func percentKWithAVariableIsRefused() throws {
        // `%K` substitutes a key path; a variable is written into the format (`$x`).
        let error = try #require(throws: StrataError.self) { try FetchPredicate(format: "%K == 1", .key("$x")) }
        #expect(error.code == .predicateSyntax)
    }

    @Test func refreshAfterABatchUpdateReadsTheNewValue() throws {
        // Core Data can hand back the cached row until the staleness interval runs out;
        // Strata's batch requests go through the coordinator, which sees them.
        let coordinator = PersistentStoreCoordinator(model: .employeesExample())
        try coordinator.addStore(InMemoryStore(model: coordinator.model))
        let context = ManagedObjectContext(coordinator: coordinator)
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue("Ada", forKey: "firstName")
        try employee.setValue("Lovelace", forKey: "lastName")
        try employee.setValue(.integer(10), forKey: "salary")
        try context.save()
        _ = try context.executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["salary": .constant(.integer(20))]))
        context.refresh(employee, mergeChanges: false)
        #expect(try employee.value(forKey: "salary") == .integer(20))
    }

    @Test func aBareKeyOfTheOuterObjectInsideASubqueryIsFalseNotAnError() throws {
        // Apple's #Predicate converter writes the outer object's name (`d`) as a bare key;
        // on a row without that key it is NULL, so the comparison is false.
        let predicate = try FetchPredicate(format: "SUBQUERY(employees, $e, $e.salary > 1 AND d == 'x').@count > 0")
        #expect(try !predicate.evaluate(with: department))
    }

    @Test func aFormatWithAnUnusedTrailingArgumentIsRefused() throws {
        // Foundation ignores the argument and compares with the literal text "%@"; Strata
        // refuses, since a quoted placeholder almost always meant the argument.
        let error = try #require(throws: StrataError.self) { try FetchPredicate(format: "SELF == '%@'", "x") }
        #expect(error.code == .predicateSyntax)
    }
}
