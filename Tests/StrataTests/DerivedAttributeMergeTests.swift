import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Derived values kept current when their inputs change in another context's or another
/// connection's save: the saving context recomputes the objects that read what it changed,
/// loading them from the store when it never fetched them.
@Suite struct DerivedAttributeMerging {
    @Test func aContextThatNeverLoadedTheDepartmentStillRecomputesItAndAMergingContextSeesIt() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let research = try company.department("Research")
        let ada = try company.employee("Ada", salary: 100, in: research)
        try company.employee("Alan", salary: 200, in: research)
        try stack.context.save()
        stack.context.automaticallyMergesChangesFromParent = true

        let background = stack.newContext()
        let adaThere = try background.existingObject(with: ada.objectID)
        try adaThere.setValue(.integer(1_000), forKey: "salary")
        #expect(background.registeredObject(for: research.objectID) == nil, "the department is not loaded there")
        try background.save()
        _ = try stack.context.count(for: FetchRequest(entityName: "Department"))  // its next operation merges

        #expect(try storedValue(research.objectID, "payroll", in: stack.store) == .integer(1_200))
        #expect(try storedValue(research.objectID, "averageSalary", in: stack.store) == .double(600))
        #expect(try research.int("payroll") == 1_200, "merged into the context showing it")
        #expect(try research.int("highestSalary") == 1_000)

        // A hire in the other context: the department changes there through the inverse.
        let grace = try Company(context: background).employee("Grace", salary: 50, in: try background.existingObject(with: research.objectID))
        try background.save()
        _ = try stack.context.count(for: FetchRequest(entityName: "Department"))
        #expect(try research.int("headcount") == 3)
        #expect(try research.int("lowestSalary") == 50)
        // And a rename there reaches the employees this context shows.
        try background.existingObject(with: research.objectID).setValue("R&D", forKey: "name")
        try background.save()
        _ = try stack.context.count(for: FetchRequest(entityName: "Department"))
        #expect(try ada.string("departmentName") == "R&D")
        #expect(try stack.context.existingObject(with: grace.objectID).string("departmentName") == "R&D")
    }

    @Test func anotherConnectionsSaveIsSeenByFetchesOfTheFirst() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (departmentURI, adaURI): (URL, URL) = try {
            let stack = try DocumentStack.create(url, model: derivedCompanyModel)
            let company = Company(context: stack.context)
            let research = try company.department("Research")
            let ada = try company.employee("Ada", salary: 100, in: research)
            try stack.context.save()
            defer { try? stack.store.close() }
            return (research.objectID.uriRepresentation(), ada.objectID.uriRepresentation())
        }()
        let one = try DocumentStack.open(url, model: derivedCompanyModel)
        let other = try DocumentStack.open(url, model: derivedCompanyModel)
        defer { try? one.store.close(); try? other.store.close() }
        one.context.automaticallyMergesChangesFromParent = true
        let research = try one.object(departmentURI)
        #expect(try research.int("payroll") == 100)

        // The other connection never loads the department: its save finds it by the inverse.
        try other.object(adaURI).setValue(.integer(700), forKey: "salary")
        try other.context.save()

        #expect(try one.store.catchUp() != nil)
        let reader = one.newContext()
        let found = try reader.fetch(FetchRequest(entityName: "Department", predicate: try FetchPredicate(format: "payroll == 700")))
        #expect(found.map(\.objectID) == [research.objectID])
        _ = try one.context.count(for: FetchRequest(entityName: "Department"))  // the confinement context merges now
        #expect(try research.int("payroll") == 700, "merged from the other connection's save")
    }

    @Test func twoContextsThatNeverMergedChangeEmployeesOfOneDepartmentAndBothSavesCount() throws {
        let stack = Stack(model: derivedCompanyModel)
        let company = Company(context: stack.context)
        let research = try company.department("Research")
        let ada = try company.employee("Ada", salary: 100, in: research)
        let alan = try company.employee("Alan", salary: 200, in: research)
        try stack.context.save()
        let one = stack.newContext(), two = stack.newContext()
        for context in [one, two] {
            context.retainsRegisteredObjects = true
            #expect(try context.existingObject(with: research.objectID).int("payroll") == 300, "both show the department")
        }
        try one.existingObject(with: ada.objectID).setValue(.integer(1_000), forKey: "salary")
        try one.save()
        // The second context still holds Ada at 100 and the department at 300: its save
        // neither conflicts on the department (only derived values changed there) nor
        // writes a sum that misses the first save.
        try two.existingObject(with: alan.objectID).setValue(.integer(2_000), forKey: "salary")
        try two.save()
        #expect(try storedValue(research.objectID, "payroll", in: stack.store) == .integer(3_000))
        #expect(try two.existingObject(with: research.objectID).int("payroll") == 3_000)
        #expect(try storedValue(research.objectID, "highestSalary", in: stack.store) == .integer(2_000))
    }

    @Test func twoConnectionsChangingOneDepartmentsEmployeesKeepItsSumExact() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let uris: [URL] = try {
            let stack = try DocumentStack.create(url, model: derivedCompanyModel)
            let company = Company(context: stack.context)
            let research = try company.department("Research")
            let ada = try company.employee("Ada", salary: 100, in: research)
            let alan = try company.employee("Alan", salary: 200, in: research)
            try stack.context.save()
            defer { try? stack.store.close() }
            return [research, ada, alan].map { $0.objectID.uriRepresentation() }
        }()
        let one = try DocumentStack.open(url, model: derivedCompanyModel)
        let other = try DocumentStack.open(url, model: derivedCompanyModel)
        defer { try? one.store.close(); try? other.store.close() }
        let research = try one.object(uris[0])
        #expect(try research.int("payroll") == 300)
        #expect(try other.object(uris[0]).int("payroll") == 300)
        try one.object(uris[1]).setValue(.integer(1_000), forKey: "salary")
        try one.context.save()
        try other.object(uris[2]).setValue(.integer(2_000), forKey: "salary")
        try other.context.save()   // catches up with the first connection under its write lock
        let reader = try DocumentStack.open(url, model: derivedCompanyModel)
        defer { try? reader.store.close() }
        #expect(try reader.object(uris[0]).int("payroll") == 3_000)
        #expect(try reader.object(uris[0]).value(forKey: "averageSalary") == .double(1_500))
    }
}
