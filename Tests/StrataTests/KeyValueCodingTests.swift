import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §3: key-value coding, key paths and collection operators; errors.
@Suite struct KeyValueCoding {
    @Test func valueForKeyAndSetValueForKeyRoundTripEveryAttributeType() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let date = Date(timeIntervalSince1970: 1_000_000)
        let uuid = UUID()
        let url = URL(string: "https://example.com/ada")!
        let values: [String: PropertyValue] = [
            "salary": .integer(52_000), "startDate": .date(date), "employeeID": .integer(7),
            "email": .string("ada@example.com"), "active": .boolean(false), "rating": .double(4.5),
            "bonus": .decimal(Decimal(string: "12.34")!), "badge": .uuid(uuid), "homepage": .uri(url),
            "photo": .data(Data([1, 2, 3])), "notes": .data(Data("{}".utf8)),
        ]
        for (key, value) in values { try employee.setValue(value, forKey: key) }
        for (key, value) in values { #expect(try employee.value(forKey: key) == value, "\(key)") }
        try stack.context.save()
        let other = stack.newContext()
        let loaded = try other.existingObject(with: employee.objectID)
        for (key, value) in values { #expect(try loaded.value(forKey: key) == value, "\(key) after reload") }
    }

    @Test func valuesAreCoercedToTheAttributeType() throws {
        let stack = Stack()
        let employee = try stack.employee()
        try employee.setValue(.double(3), forKey: "salary")
        #expect(try employee.value(forKey: "salary") == .integer(3))
        try employee.setValue(.integer(4), forKey: "rating")
        #expect(try employee.value(forKey: "rating") == .double(4))
    }

    @Test func anUnknownKeyIsAnError() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let read = strataError { _ = try employee.value(forKey: "wage") }
        #expect(read?.code == .unknownKey)
        #expect(read?.context.key == "wage")
        #expect(read?.context.entity == "Employee")
        #expect(strataError { try employee.setValue(.integer(1), forKey: "wage") }?.code == .unknownKey)
        // A nil link ends the path before the unknown key is reached, as messaging nil does.
        #expect(try employee.value(forKeyPath: "department.wage") == .single(.null))
        try employee.setObject(try stack.department(), forKey: "department")
        #expect(strataError { _ = try employee.value(forKeyPath: "department.wage") }?.code == .unknownKey)
        #expect(strataError { _ = try employee.value(forKeyPath: "wage.name") }?.code == .unknownKey)
    }

    @Test func aValueOfTheWrongTypeIsATypeMismatchThatChangesNothing() throws {
        let stack = Stack()
        let employee = try stack.employee(salary: 10)
        let error = strataError { try employee.setValue(.string("lots"), forKey: "salary") }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context.key == "salary")
        #expect(error?.message.contains("integer64") == true)
        #expect(strataError { try employee.setValue(.double(1.5), forKey: "salary") }?.code == .typeMismatch)
        #expect(strataError { try employee.setValue(.integer(1 << 40), forKey: "employeeID") }?.code == .typeMismatch)
        #expect(strataError { try employee.setValue(.integer(5), forKey: "lastName") }?.code == .typeMismatch)
        #expect(strataError { try employee.setValue(.string("x"), forKey: "department") }?.code == .typeMismatch)
        #expect(try employee.int("salary") == 10)
        #expect(try employee.string("lastName") == "Lovelace")
    }

    @Test func aKeyPathFollowsToOneChains() throws {
        let stack = Stack()
        let department = try stack.department("Research")
        let top = try stack.employee("Top", "T")
        let middle = try stack.employee("Middle", "M")
        let bottom = try stack.employee("Bottom", "B")
        try top.setObject(department, forKey: "department")
        try middle.setObject(top, forKey: "manager")
        try bottom.setObject(middle, forKey: "manager")
        #expect(try bottom.value(forKeyPath: "manager.manager.department.name") == .single(.string("Research")))
        #expect(try bottom.value(forKeyPath: "manager.firstName") == .single(.string("Middle")))
        #expect(try bottom.value(forKeyPath: "manager.manager") == .single(.object(top.objectID)))
        #expect(try bottom.value(forKeyPath: "lastName") == .single(.string("B")))
        // A nil link ends the path with null.
        #expect(try middle.value(forKeyPath: "manager.manager.department.name") == .single(.null))
    }

    @Test func aKeyPathFollowsToOneChainsThroughFaults() throws {
        let stack = Stack()
        let department = try stack.department("Research")
        let top = try stack.employee("Top", "T")
        let bottom = try stack.employee("Bottom", "B")
        try top.setObject(department, forKey: "department")
        try bottom.setObject(top, forKey: "manager")
        try stack.context.save()
        let other = stack.newContext()
        let loaded = other.object(with: bottom.objectID)
        #expect(try loaded.value(forKeyPath: "manager.department.name").value == .string("Research"))
    }

    @Test func aKeyPathThroughAToManyGivesEveryValue() throws {
        let stack = Stack()
        let department = try stack.department()
        let a = try stack.employee("A", "A", salary: 100)
        let b = try stack.employee("B", "B", salary: 300)
        try department.mutableSetValue(forKey: "employees").set([a, b])
        #expect(try department.value(forKeyPath: "employees.salary") == .multiple([.integer(100), .integer(300)]))
        #expect(try a.value(forKeyPath: "department.employees.firstName") == .multiple([.string("A"), .string("B")]))
    }

    @Test func collectionOperatorsAggregateAToMany() throws {
        let stack = Stack()
        let department = try stack.department()
        let salaries: [Int64] = [100, 200, 600]
        let employees = try salaries.map { try stack.employee("E\($0)", "L", salary: $0) }
        try department.mutableSetValue(forKey: "employees").set(employees)
        #expect(try department.value(forKeyPath: "employees.@count") == .single(.integer(3)))
        #expect(try department.value(forKeyPath: "employees.@sum.salary") == .single(.integer(900)))
        #expect(try department.value(forKeyPath: "employees.@avg.salary") == .single(.double(300)))
        #expect(try department.value(forKeyPath: "employees.@min.salary") == .single(.integer(100)))
        #expect(try department.value(forKeyPath: "employees.@max.salary") == .single(.integer(600)))
        #expect(try department.value(forKeyPath: "employees.@max.firstName") == .single(.string("E600")))
        // Through a to-one first.
        #expect(try employees[0].value(forKeyPath: "department.employees.@sum.salary") == .single(.integer(900)))
        #expect(try employees[0].value(forKeyPath: "department.employees.@count") == .single(.integer(3)))
    }

    @Test func collectionOperatorsOverAnEmptyToMany() throws {
        let stack = Stack()
        let department = try stack.department()
        #expect(try department.value(forKeyPath: "employees.@count") == .single(.integer(0)))
        #expect(try department.value(forKeyPath: "employees.@sum.salary") == .single(.integer(0)))
        #expect(try department.value(forKeyPath: "employees.@avg.salary") == .single(.null))
        #expect(try department.value(forKeyPath: "employees.@max.salary") == .single(.null))
    }

    @Test func collectionOperatorsSkipNullValuesLikeSQL() throws {
        let stack = Stack()
        let department = try stack.department()
        let a = try stack.employee("A", "A", salary: 100)
        let b = try stack.employee("B", "B", salary: 300)
        let c = try stack.employee("C", "C")  // NULL salary
        try department.mutableSetValue(forKey: "employees").set([a, b, c])
        #expect(try department.value(forKeyPath: "employees.@count") == .single(.integer(3)))
        #expect(try department.value(forKeyPath: "employees.@sum.salary") == .single(.integer(400)))
        #expect(try department.value(forKeyPath: "employees.@avg.salary") == .single(.double(200)))
        #expect(try department.value(forKeyPath: "employees.@min.salary") == .single(.integer(100)))
    }

    @Test func misusedCollectionOperatorsAreErrors() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let department = try stack.department()
        try employee.setObject(department, forKey: "department")
        #expect(strataError { _ = try employee.value(forKeyPath: "department.@count") }?.code == .unknownKey)
        #expect(strataError { _ = try department.value(forKeyPath: "employees.@median.salary") }?.code == .unknownKey)
        #expect(strataError { _ = try department.value(forKeyPath: "employees.@sum") }?.code == .unknownKey)
        #expect(strataError { _ = try department.value(forKeyPath: "employees.@sum.wage") }?.code == .unknownKey)
    }
}
