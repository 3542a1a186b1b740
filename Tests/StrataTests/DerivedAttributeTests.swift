import Foundation
import Testing
@testable import Strata
import StrataTestSupport

@Suite struct DerivedAttributes {
    private func aggregates(_ count: Int64, _ sum: Int64, _ min: PropertyValue, _ max: PropertyValue, _ avg: PropertyValue) -> [String: PropertyValue] {
        ["headcount": .integer(count), "payroll": .integer(sum), "lowestSalary": min, "highestSalary": max, "averageSalary": avg]
    }

    @Test func aKeyPathThroughAToOneIsComputedAtSaveAndFollowsARenameOfTheDestination() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let research = try company.department("Research")
        let ada = try company.employee("Ada", salary: 100, in: research)
        #expect(try ada.value(forKey: "departmentName") == .null, "not computed before the save")
        try stack.context.save()
        #expect(try ada.string("departmentName") == "Research")
        #expect(try ada.string("shoutedName") == "ADA")

        // Only the department changes; the employee that reads it is recomputed too.
        try research.setValue("R&D", forKey: "name")
        try stack.context.save()
        #expect(try ada.string("departmentName") == "R&D")
        try ada.setObject(nil, forKey: "department")
        try stack.context.save()
        #expect(try ada.value(forKey: "departmentName") == .null)
    }

    @Test func toManyAggregatesFollowSalariesHiresMovesAndDeletions() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let research = try company.department("Research")
        let sales = try company.department("Sales")
        let ada = try company.employee("Ada", salary: 100, in: research)
        try company.employee("Alan", salary: 300, in: research)
        try stack.context.save()
        #expect(try research.aggregates() == aggregates(2, 400, .integer(100), .integer(300), .double(200)))
        #expect(try sales.aggregates() == aggregates(0, 0, .null, .null, .null), "an empty to-many: 0 and NULLs")

        try ada.setValue(.integer(500), forKey: "salary")          // only an employee changes
        try stack.context.save()
        #expect(try research.aggregates() == aggregates(2, 800, .integer(300), .integer(500), .double(400)))

        try ada.setObject(sales, forKey: "department")              // a move changes both
        try stack.context.save()
        #expect(try research.aggregates() == aggregates(1, 300, .integer(300), .integer(300), .double(300)))
        #expect(try sales.aggregates() == aggregates(1, 500, .integer(500), .integer(500), .double(500)))

        stack.context.delete(ada)
        try stack.context.save()
        #expect(try sales.int("headcount") == 0)
        #expect(try sales.int("payroll") == 0)
        #expect(try storedValue(sales.objectID, "payroll", in: stack.store) == .integer(0), "stored like any attribute")
    }

    @Test func canonicalFoldsCaseAndDiacriticsAndNowIsOneDatePerSave() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let kitchen = try company.department("Crème Brûlée")
        let ada = try company.employee("Ada", salary: 1, in: kitchen)
        let alan = try company.employee("Alan", salary: 2, in: kitchen)
        let before = Date()
        try stack.context.save()
        let after = Date()
        #expect(try kitchen.string("searchName") == "creme brulee")
        guard case .date(let saved) = try ada.value(forKey: "lastModified") else { Issue.record("no date"); return }
        #expect(saved >= before && saved <= after)
        #expect(try alan.value(forKey: "lastModified") == .date(saved), "objects saved together share one now()")

        try ada.setValue(.integer(5), forKey: "salary")
        try stack.context.save()
        guard case .date(let resaved) = try ada.value(forKey: "lastModified") else { Issue.record("no date"); return }
        #expect(resaved >= saved)
        #expect(try alan.value(forKey: "lastModified") == .date(saved), "an object not saved keeps its date")
        #expect(try stack.context.fetch(FetchRequest(entityName: "Department", predicate: FetchPredicate(format: "searchName == %@", .value(.string("creme brulee"))))) == [kitchen])
    }

    @Test func settingADerivedAttributeIsAClearErrorAndChangesNothing() throws {
        let stack = Stack(model: derivedCompanyModel)
        let research = try Company(context: stack.context).department("Research")
        let error = strataError { try research.setValue(.integer(7), forKey: "headcount") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "Department.headcount is derived from 'employees.@count' and computed when the context saves; it cannot be set.")
        #expect(error?.context.key == "headcount")
        #expect(try research.value(forKey: "headcount") == .null)
    }

    @Test func undoingASaveRestoresTheDerivedValuesItComputed() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let research = try company.department("Research")
        let ada = try company.employee("Ada", salary: 100, in: research)
        try stack.context.save()
        try ada.setValue(.integer(250), forKey: "salary")
        try stack.context.save()
        #expect(try research.int("payroll") == 250)

        _ = try stack.undo.undo()
        #expect(try ada.int("salary") == 100)
        #expect(try research.int("payroll") == 100, "the derived change was part of the undone group")
        _ = try stack.undo.redo()
        #expect(try research.int("payroll") == 250)
        _ = try stack.undo.undo()
        try stack.context.save()
        #expect(try storedValue(research.objectID, "payroll", in: stack.store) == .integer(100))
    }

    @Test func fetchesFilterAndSortByDerivedValuesInMemoryAndInADocument() throws {
        let document = try DocumentStack(model: derivedCompanyModel)
        for context in [Stack(model: derivedCompanyModel).context, document.context] {
            let company = Company(context: context)
            for (name, salaries) in [("Small", [10]), ("Large", [10, 20, 30]), ("Medium", [40, 50])] {
                let department = try company.department(name)
                for (index, salary) in salaries.enumerated() { try company.employee("\(name)\(index)", salary: Int64(salary), in: department) }
            }
            try context.save()
            let request = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "payroll >= 60"),
                                       sortDescriptors: [FetchSortDescriptor("headcount", ascending: false)])
            #expect(try context.fetch(request).map { try $0.string("name") } == ["Large", "Medium"])
            let byAverage = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.averageSalary > 25"),
                                         sortDescriptors: [FetchSortDescriptor("departmentName"), FetchSortDescriptor("salary", ascending: false)])
            #expect(try context.fetch(byAverage).map { try $0.string("name") } == ["Medium1", "Medium0"])
        }
        // The document's own tables hold the values, so SQL filters and sorts by them.
        _ = try document.store.compact()
        #expect(try sqlRows(document.url, "SELECT name, headcount, payroll FROM Department ORDER BY payroll DESC")
                == [[.text("Medium"), .integer(2), .integer(90)], [.text("Large"), .integer(3), .integer(60)], [.text("Small"), .integer(1), .integer(10)]])
        let folded = FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "canonical:(name) == 'large' AND searchName == canonical:('LÂRGE')"))
        let fresh = document.newContext()
        #expect(try fresh.fetch(folded).map { try $0.string("name") } == ["Large"])
        let sorted = FetchRequest(entityName: "Department", sortDescriptors: [FetchSortDescriptor("payroll")])
        #expect(try fresh.fetch(sorted).map { try $0.string("name") } == ["Small", "Large", "Medium"])
    }

    @Test func aChildContextsSaveLeavesTheComputingToItsParentsSave() throws {
        let stack = Stack(model: derivedCompanyModel)
        let research = try Company(context: stack.context).department("Research")
        try stack.context.save()
        let child = ManagedObjectContext(parent: stack.context)
        let researchThere = try child.existingObject(with: research.objectID)
        try Company(context: child).employee("Ada", salary: 100, in: researchThere)
        try child.save()
        #expect(try research.int("headcount") == 0, "not computed by the child's save")
        try stack.context.save()
        #expect(try research.int("headcount") == 1)
        #expect(try storedValue(research.objectID, "payroll", in: stack.store) == .integer(100))
    }

    @Test func aValueThatDoesNotFitItsAttributeFailsTheSaveNamingObjectAttributeAndDerivation() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Team", attributes: [try .derived("totalAge", .integer16, "members.@sum.age")],
                              relationships: [RelationshipDescription("members", to: "Member", toMany: true, inverse: "team")]),
            EntityDescription("Member", attributes: [AttributeDescription("age", .integer64)],
                              relationships: [RelationshipDescription("team", to: "Team", inverse: "members")]),
        ])
        let stack = Stack(model: model)
        let team = try stack.context.insertObject(forEntityName: "Team")
        for age in [30_000, 30_000] as [Int64] {
            let member = try stack.context.insertObject(forEntityName: "Member")
            try member.setValue(.integer(age), forKey: "age")
            try member.setObject(team, forKey: "team")
        }
        let error = strataError { try stack.context.save() }
        #expect(error?.code == .validation)
        #expect(error?.problems.count == 1)
        #expect(error?.problems.first?.key == "totalAge")
        #expect(error?.problems.first?.reason == "derivation 'members.@sum.age': gives integer 60000, which an integer16 attribute cannot hold")
        #expect(try stack.context.count(for: FetchRequest(entityName: "Team")) == 1, "the context keeps its changes")
        #expect(try stack.store.values(for: team.objectID) == nil, "nothing was written")
    }
}
