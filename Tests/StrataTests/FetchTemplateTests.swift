import Foundation
import Testing
@testable import Strata

@Suite struct FetchTemplateTests {
    @Test func aTemplateBecomesARequestWithItsVariablesSubstituted() throws {
        let fixture = try FetchFixture()
        let request = try fixture.model.fetchRequestFromTemplate(
            withName: "EmployeesEarningMoreThan", substitutionVariables: ["SALARY": 100_000])
        #expect(request.entityName == "Employee")
        #expect(request.predicate == (try FetchPredicate(format: "salary > 100000")))
        request.sortDescriptors = [FetchSortDescriptor("salary")]
        #expect(try lastNames(fixture.context.fetch(request)) == ["Lovelace", "Hopper"])
        let named = try fixture.model.fetchRequestFromTemplate(withName: "EmployeesNamed", substitutionVariables: ["LAST_NAME": "Turing"])
        #expect(try lastNames(fixture.context.fetch(named)) == ["Turing"])
    }

    @Test func aMissingVariableIsAnErrorNamingIt() throws {
        #expect {
            try sharedExampleModel.fetchRequestFromTemplate(withName: "EmployeesEarningMoreThan", substitutionVariables: ["SALRY": 1])
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .predicateEvaluation && error?.context.variable == "SALARY"
                && error?.context.template == "EmployeesEarningMoreThan" && error?.message.contains("SALARY") == true
        }
    }

    @Test func anUnknownTemplateIsAnErrorNamingIt() throws {
        #expect {
            try sharedExampleModel.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:])
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .unknownKey && error?.context.template == "Nope"
        }
    }

    @Test func aFetchedPropertyIsEvaluatedWithTheObjectAsFetchSource() throws {
        let fixture = try FetchFixture()
        let sales = try fixture.department("Sales")
        let research = try fixture.department("R&D")
        #expect(try lastNames(sales.fetchedProperty("highEarners")) == ["Hopper"])
        #expect(try lastNames(research.fetchedProperty("highEarners")) == ["Lovelace"])
    }

    @Test func aFetchedPropertyIsNotKeptUpToDateUntilRefresh() throws {
        let fixture = try FetchFixture()
        let research = try fixture.department("R&D")
        let first = try research.fetchedProperty("highEarners")
        #expect(try lastNames(first) == ["Lovelace"])
        // A raise makes Turing a high earner, but the cached array does not change…
        try fixture.employee("Turing").setValue(.integer(200_000), forKey: "salary")
        try fixture.context.save()
        #expect(try lastNames(research.fetchedProperty("highEarners")) == ["Lovelace"])
        // …until the department is refreshed.
        fixture.context.refresh(research, mergeChanges: false)
        #expect(try Set(lastNames(research.fetchedProperty("highEarners"))) == ["Lovelace", "Turing"])
        // reset forgets every cached array too.
        let other = fixture.freshContext()
        let again = try fixture.department("R&D", in: other)
        #expect(try again.fetchedProperty("highEarners").count == 2)
    }

    @Test func anUnknownFetchedPropertyIsAnErrorNamingIt() throws {
        let fixture = try FetchFixture()
        #expect {
            try fixture.department("R&D").fetchedProperty("lowEarners")
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .unknownKey && error?.context.key == "lowEarners" && error?.context.entity == "Department"
        }
    }

    @Test func fetchedPropertyNameIsBoundToFetchedPropertyVariable() throws {
        let note = EntityDescription("Note", attributes: [AttributeDescription("tag", .string)], fetchedProperties: [
            FetchedPropertyDescription("urgent", entity: "Note", predicate: "tag == $FETCHED_PROPERTY AND SELF != $FETCH_SOURCE"),
            FetchedPropertyDescription("broken", entity: "Note", predicate: "tag == $MISSING"),
        ])
        let model = try ManagedObjectModel(entities: [note])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        var notes: [ManagedObject] = []
        for tag in ["urgent", "later", "urgent", "urgent"] {
            let object = try context.insertObject(forEntityName: "Note")
            try object.setValue(.string(tag), forKey: "tag")
            notes.append(object)
        }
        let found = try notes[0].fetchedProperty("urgent")
        #expect(Set(found) == [notes[2], notes[3]])
        #expect {
            try notes[0].fetchedProperty("broken")
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .predicateEvaluation && error?.context.variable == "MISSING" && error?.context.key == "broken"
        }
    }
}
