import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §3: setting a relationship updates its inverse at once, whichever way it is
/// set (setValue, setObject, mutableSetValue add/remove/set).
@Suite struct RelationshipInverses {
    // MARK: One-to-one

    @Test func settingAOneToOneStealsTheDestinationFromItsPreviousOwner() throws {
        let stack = Stack(model: oneToOneModel)
        let context = stack.context
        let first = try insertNamed("Driver", "first", in: context)
        let second = try insertNamed("Driver", "second", in: context)
        let car = try context.insertObject(forEntityName: "Car")

        try first.setObject(car, forKey: "car")
        #expect(try car.related("driver") === first)

        try second.setObject(car, forKey: "car")
        #expect(try car.related("driver") === second)
        #expect(try first.related("car") == nil, "the previous owner must lose the car")
        #expect(try second.related("car") === car)
        context.processPendingChanges()
        #expect(context.graphInvariantViolations().isEmpty)
    }

    @Test func settingTheOtherEndOfAOneToOneAlsoStealsIt() throws {
        let stack = Stack(model: oneToOneModel)
        let context = stack.context
        let driver = try insertNamed("Driver", "d", in: context)
        let oldCar = try context.insertObject(forEntityName: "Car")
        let newCar = try context.insertObject(forEntityName: "Car")
        try oldCar.setValue(.object(driver.objectID), forKey: "driver")
        #expect(try driver.related("car") === oldCar)

        try newCar.setValue(.object(driver.objectID), forKey: "driver")
        #expect(try driver.related("car") === newCar)
        #expect(try oldCar.related("driver") == nil)

        try driver.setObject(nil, forKey: "car")
        #expect(try newCar.related("driver") == nil)
        context.processPendingChanges()
        #expect(context.graphInvariantViolations().isEmpty)
    }

    // MARK: To-one ↔ to-many

    @Test func settingAToOneAddsToAndRemovesFromTheInverseToMany() throws {
        let stack = Stack()
        let research = try stack.department("Research")
        let sales = try stack.department("Sales")
        let employee = try stack.employee()

        try employee.setObject(research, forKey: "department")
        #expect(try research.relatedSet("employees") == [employee])

        try employee.setValue(.object(sales.objectID), forKey: "department")
        #expect(try research.relatedSet("employees").isEmpty)
        #expect(try sales.relatedSet("employees") == [employee])

        try employee.setValue(.null, forKey: "department")
        #expect(try sales.relatedSet("employees").isEmpty)
    }

    @Test func addingToAToManyMovesTheMemberFromItsPreviousOwner() throws {
        let stack = Stack()
        let research = try stack.department("Research")
        let sales = try stack.department("Sales")
        let employee = try stack.employee()

        try research.mutableSetValue(forKey: "employees").add(employee)
        #expect(try employee.related("department") === research)

        try sales.mutableSetValue(forKey: "employees").add(employee)
        #expect(try employee.related("department") === sales)
        #expect(try research.relatedSet("employees").isEmpty, "the member left its previous department")

        try sales.mutableSetValue(forKey: "employees").remove(employee)
        #expect(try employee.related("department") == nil)
        #expect(try sales.mutableSetValue(forKey: "employees").count == 0)
    }

    @Test func settingAToManyWholesaleUpdatesEveryInverse() throws {
        let stack = Stack()
        let department = try stack.department()
        let a = try stack.employee("A", "A")
        let b = try stack.employee("B", "B")
        let c = try stack.employee("C", "C")

        try department.mutableSetValue(forKey: "employees").set([a, b])
        #expect(try a.related("department") === department)
        #expect(try b.related("department") === department)

        try department.setValue(.objects([b.objectID, c.objectID]), forKey: "employees")
        #expect(try a.related("department") == nil)
        #expect(try b.related("department") === department)
        #expect(try c.related("department") === department)

        try department.setValue(.null, forKey: "employees")
        for employee in [a, b, c] { #expect(try employee.related("department") == nil) }
        #expect(try department.relatedSet("employees").isEmpty)
    }

    @Test func aReflexiveRelationshipKeepsManagerAndDirectReportsConsistent() throws {
        let stack = Stack()
        let boss = try stack.employee("Boss", "B")
        let other = try stack.employee("Other", "O")
        let worker = try stack.employee("Worker", "W")
        try worker.setObject(boss, forKey: "manager")
        #expect(try boss.relatedSet("directReports") == [worker])
        try other.mutableSetValue(forKey: "directReports").add(worker)
        #expect(try worker.related("manager") === other)
        #expect(try boss.relatedSet("directReports").isEmpty)
    }

    // MARK: Many-to-many

    @Test func aManyToManyKeepsBothSidesConsistent() throws {
        let stack = Stack()
        let ada = try stack.employee("Ada", "L")
        let bob = try stack.employee("Bob", "B")
        let engine = try stack.project("Engine")
        let loom = try stack.project("Loom")

        try ada.mutableSetValue(forKey: "projects").add(engine)
        try ada.mutableSetValue(forKey: "projects").add(loom)
        #expect(try engine.relatedSet("members") == [ada])
        #expect(try loom.relatedSet("members") == [ada])

        try engine.mutableSetValue(forKey: "members").add(bob)
        #expect(try bob.relatedSet("projects") == [engine])
        #expect(try engine.relatedSet("members") == [ada, bob])

        try ada.mutableSetValue(forKey: "projects").remove(engine)
        #expect(try engine.relatedSet("members") == [bob])
        #expect(try ada.relatedSet("projects") == [loom])

        try loom.setValue(.objects([bob.objectID]), forKey: "members")
        #expect(try ada.relatedSet("projects").isEmpty)
        #expect(try bob.relatedSet("projects") == [engine, loom])

        try bob.mutableSetValue(forKey: "projects").set([])
        #expect(try engine.relatedSet("members").isEmpty)
        #expect(try loom.relatedSet("members").isEmpty)
        stack.context.processPendingChanges()
        #expect(stack.context.graphInvariantViolations().isEmpty)
    }

    @Test func inversesAreMaintainedThroughFaultsInAnotherContext() throws {
        let stack = Stack()
        let research = try stack.department("Research")
        let sales = try stack.department("Sales")
        let employee = try stack.employee()
        try employee.setObject(research, forKey: "department")
        try stack.context.save()

        let other = stack.newContext()
        let loaded = try other.existingObject(with: employee.objectID)
        let otherSales = other.object(with: sales.objectID)
        try loaded.setObject(otherSales, forKey: "department")
        let otherResearch = try #require(other.registeredObject(for: research.objectID))
        #expect(try otherResearch.relatedSet("employees").isEmpty)
        #expect(try otherSales.relatedSet("employees") == [loaded])
        try other.save()

        let third = stack.newContext()
        #expect(try third.existingObject(with: research.objectID).value(forKey: "employees").objectIDs.isEmpty)
        #expect(try third.existingObject(with: sales.objectID).value(forKey: "employees").objectIDs == [employee.objectID])
    }

    @Test func aDestinationOfTheWrongEntityIsATypeMismatch() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let project = try stack.project()
        #expect(strataError { try employee.setValue(.object(project.objectID), forKey: "department") }?.code == .typeMismatch)
        #expect(strataError { try employee.setValue(.objects([project.objectID]), forKey: "manager") }?.code == .typeMismatch)
        #expect(strataError { try employee.setValue(.object(project.objectID), forKey: "projects") }?.code == .typeMismatch)
        #expect(strataError { _ = try employee.mutableSetValue(forKey: "department") }?.code == .typeMismatch)
        #expect(try employee.related("department") == nil)
    }
}
