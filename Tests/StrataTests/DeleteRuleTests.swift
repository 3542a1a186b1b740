import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §3: delete rules run at `processPendingChanges()`.
@Suite struct DeleteRules {
    /// A company with two departments of two employees each, saved.
    func savedCompany(_ stack: Stack) throws -> (company: ManagedObject, departments: [ManagedObject], employees: [ManagedObject]) {
        let context = stack.context
        let company = try insertNamed("Company", "Acme", in: context)
        var departments: [ManagedObject] = []
        var employees: [ManagedObject] = []
        for d in 0..<2 {
            let department = try insertNamed("Department", "D\(d)", in: context)
            try department.setObject(company, forKey: "company")
            departments.append(department)
            for e in 0..<2 {
                let employee = try insertNamed("Employee", "E\(d)\(e)", in: context)
                try employee.setObject(department, forKey: "department")
                employees.append(employee)
            }
        }
        try context.save()
        return (company, departments, employees)
    }

    @Test func cascadeDeletesThroughTwoLevels() throws {
        let stack = Stack(model: cascadeModel)
        let (company, departments, employees) = try savedCompany(stack)
        stack.context.delete(company)
        #expect(departments.allSatisfy { !$0.isDeleted }, "rules run at the flush, not at delete()")
        stack.context.processPendingChanges()
        #expect(departments.allSatisfy { $0.isDeleted })
        #expect(employees.allSatisfy { $0.isDeleted })
        #expect(stack.context.deletedObjects.count == 7)
        try stack.context.save()

        let other = stack.newContext()
        for object in [company] + departments + employees {
            #expect(strataError { _ = try other.existingObject(with: object.objectID) }?.code == .objectNotFound)
        }
    }

    @Test func cascadeLoadsFaultedDestinationsInAnotherContext() throws {
        let stack = Stack(model: cascadeModel)
        let (company, departments, employees) = try savedCompany(stack)
        let other = stack.newContext()
        let loaded = try other.existingObject(with: company.objectID)
        #expect(other.registeredObjects.count == 1)
        other.delete(loaded)
        other.processPendingChanges()
        #expect(Set(other.deletedObjects.map(\.objectID)) == ids([company] + departments + employees))
        try other.save()
        let entity = try #require(cascadeModel.entitiesByName["Employee"])
        #expect(try stack.store.objectIDs(for: entity, includingSubentities: false).isEmpty)
    }

    @Test func cascadeFromTheMiddleLevelNullifiesTheParentSide() throws {
        let stack = Stack(model: cascadeModel)
        let (company, departments, employees) = try savedCompany(stack)
        stack.context.delete(departments[0])
        stack.context.processPendingChanges()
        #expect(employees[0].isDeleted && employees[1].isDeleted)
        #expect(!employees[2].isDeleted && !employees[3].isDeleted)
        #expect(!company.isDeleted)
        #expect(try company.relatedSet("departments") == [departments[1]])
        #expect(stack.context.graphInvariantViolations().isEmpty)
    }

    @Test func nullifyRemovesTheDeletedObjectFromEveryInverse() throws {
        let stack = Stack()
        let department = try stack.department()
        let boss = try stack.employee("Boss", "B")
        let employee = try stack.employee()
        let report = try stack.employee("Report", "R")
        let project = try stack.project()
        try employee.setObject(department, forKey: "department")
        try employee.setObject(boss, forKey: "manager")
        try report.setObject(employee, forKey: "manager")
        try employee.mutableSetValue(forKey: "projects").add(project)
        try stack.context.save()

        stack.context.delete(employee)
        stack.context.processPendingChanges()
        #expect(try department.relatedSet("employees").isEmpty)
        #expect(try boss.relatedSet("directReports").isEmpty)
        #expect(try report.related("manager") == nil)
        #expect(try project.relatedSet("members").isEmpty)
        #expect(!department.isDeleted && !boss.isDeleted && !report.isDeleted && !project.isDeleted)
        try stack.context.save()

        let other = stack.newContext()
        #expect(try other.existingObject(with: department.objectID).value(forKey: "employees").objectIDs.isEmpty)
        #expect(try other.existingObject(with: report.objectID).value(forKey: "manager") == .null)
    }

    @Test func denyMakesTheSaveFailNamingTheRelationshipAndChangesNothing() throws {
        let stack = Stack(model: denyAndNoActionModel)
        let context = stack.context
        let owner = try insertNamed("Owner", "Olga", in: context)
        let pet = try insertNamed("Pet", "Rex", in: context)
        try pet.setObject(owner, forKey: "owner")
        try context.save()

        context.delete(owner)
        context.processPendingChanges()
        #expect(owner.isDeleted)
        #expect(try pet.related("owner") === owner, "deny leaves the destinations alone")
        let error = strataError { try context.save() }
        #expect(error?.code == .validation)
        let problem = try #require(error?.problems.first)
        #expect(error?.problems.count == 1)
        #expect(problem.entityName == "Owner")
        #expect(problem.key == "pets")
        #expect(problem.object == owner.objectID.description)
        #expect(problem.reason.contains("denied"))

        // The context is as it was: the delete still pending, the pet unchanged.
        #expect(owner.isDeleted)
        #expect(context.hasChanges)
        #expect(context.deletedObjects == [owner])
        #expect(try pet.related("owner") === owner)
        // The store is unchanged.
        let other = stack.newContext()
        #expect(try other.existingObject(with: owner.objectID).string("name") == "Olga")

        // Once the destination is gone, the delete saves.
        context.delete(pet)
        try context.save()
        let third = stack.newContext()
        #expect(strataError { _ = try third.existingObject(with: owner.objectID) }?.code == .objectNotFound)
    }

    @Test func denyWithNoDestinationsLetsTheDeleteSave() throws {
        let stack = Stack(model: denyAndNoActionModel)
        let owner = try insertNamed("Owner", "Olga", in: stack.context)
        try stack.context.save()
        stack.context.delete(owner)
        try stack.context.save()
        #expect(owner.isInvalid)
    }

    @Test func noActionLeavesTheInversePointingAtTheDeletedObject() throws {
        let stack = Stack(model: denyAndNoActionModel)
        let context = stack.context
        let keeper = try insertNamed("Keeper", "Kim", in: context)
        let animal = try insertNamed("Animal", "Leo", in: context)
        try animal.setObject(keeper, forKey: "keeper")
        try context.save()
        let keeperID = keeper.objectID

        context.delete(keeper)
        context.processPendingChanges()
        #expect(try animal.value(forKey: "keeper") == .object(keeperID))
        #expect(!animal.isUpdated)
        #expect(!animal.isDeleted)
        try context.save()
        let other = stack.newContext()
        #expect(try other.existingObject(with: animal.objectID).value(forKey: "keeper") == .object(keeperID))
    }
}
