import Foundation
import Testing
import Strata

/// docs/SEMANTICS.md: the smallest API changes for the frictions an embedding developer met
/// (issue 33, item 6), in Core Data's vocabulary, each old name still working.
@Suite struct EmbeddingFriction {
    private func container() throws -> PersistentContainer {
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        return try PersistentContainer(name: "Staff", model: .employeesExample(), url: nil, options: options)
    }

    @Test func anObjectWhoseContextWasReleasedSaysTheContextIsGone() throws {
        let coordinator = PersistentStoreCoordinator(model: .employeesExample())
        try coordinator.addStore(InMemoryStore(model: coordinator.model))
        var context: ManagedObjectContext? = ManagedObjectContext(coordinator: coordinator)
        let employee = try #require(try context?.insertObject(forEntityName: "Employee"))
        context = nil
        let error = try #require(throws: StrataError.self) { try employee.setValue("Lovelace", forKey: "lastName") }
        #expect(error.code == .invalidObject)
        #expect(error.message.contains("context is gone"))
        #expect(!error.message.contains("is not registered in a context"))
    }

    @Test func anUnregisteredObjectStillSaysItIsNotRegistered() throws {
        let model = ManagedObjectModel.employeesExample()
        let employee = ManagedObject(entity: try model.entity(named: "Employee"), insertInto: nil)
        let error = try #require(throws: StrataError.self) { try employee.setValue("Ada", forKey: "firstName") }
        #expect(error.message.contains("is not registered in a context"))
    }

    @Test func groupedFetchesTakeTheTextFormOfTheirColumns() throws {
        let container = try container()
        let context = container.viewContext
        for (name, salaries) in [("R&D", [100, 200]), ("Sales", [50])] {
            let department = try context.insertObject(forEntityName: "Department")
            try department.setValue(.string(name), forKey: "name")
            for salary in salaries {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue("E", forKey: "firstName")
                try employee.setValue("L", forKey: "lastName")
                try employee.setValue(.integer(Int64(salary)), forKey: "salary")
                try employee.setObject(department, forKey: "department")
            }
        }
        try context.save()
        let request = FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("department.name")])
        request.resultType = .dictionary
        let employee = try context.model.entity(named: "Employee")
        request.propertiesToFetch = try FetchProperty.list(parsing: "department.name, sum:(salary) AS total", entity: employee)
        request.propertiesToGroupBy = ["department.name"]
        let rows = try context.fetchDictionaries(request)
        #expect(rows.map { $0["total"] } == [.integer(300), .integer(50)])
        #expect(try FetchProperty(parsing: "department.name", entity: employee) == .key("department.name"))
        #expect(try FetchProperty(parsing: "average:(salary) AS mean:integer64", entity: employee)
            == .expression(ExpressionDescription(name: "mean", expression: try FetchExpression(format: "average:(salary)"),
                                                 resultType: .integer64)))
    }

    @Test func theContainerGivesItsDocumentStoreWithoutACast() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-friction-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        let onDisk = try PersistentContainer(name: "Staff", model: .employeesExample(),
                                             url: directory.appendingPathComponent("staff.strata"), options: options)
        #expect(onDisk.documentStore != nil)
        #expect(try onDisk.documentStore?.logPosition.last == 0)
        try onDisk.close()
        #expect(try container().documentStore == nil)
    }

    @Test func aValueReadsAsASwiftType() throws {
        let context = try container().viewContext
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue("Lovelace", forKey: "lastName")
        #expect(try employee.value(forKey: "lastName", as: String?.self) == "Lovelace")
        #expect(try employee.value(forKey: "email", as: String?.self) == nil)
        #expect(try employee.value(forKey: "salary", as: Int64.self) == 0)
    }

    @Test func messagesPutAnBeforeAVowel() throws {
        let error = try #require(throws: StrataError.self) {
            try FetchExpression(format: "uppercase:(salary)").value(with: PredicateRow(["salary": 5]))
        }
        #expect(error.message.contains("not an integer"))
        #expect(!error.message.contains("a integer"))
    }
}
