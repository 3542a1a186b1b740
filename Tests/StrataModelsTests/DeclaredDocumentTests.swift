import Foundation
import StrataModels
import StrataTestSupport
import Testing

@Suite("Declared model documents")
struct DeclaredDocumentTests {
    /// Makes a document with `writer`'s model: a department, two employees with every kind
    /// of value, a manager and an ordered to-many.
    private func writeStaff(at url: URL, model: ManagedObjectModel) throws {
        let stack = try DocumentStack.create(url, model: model)
        let context = stack.context
        let research = try context.insertObject(forEntityName: "Department")
        try research.setValue("Research", forKey: "name")
        let ada = try context.insertObject(forEntityName: "Employee")
        try ada.setValue("Ada", forKey: "firstName")
        try ada.setValue("Lovelace", forKey: "lastName")
        try ada.setValue(.integer(150_000), forKey: "salary")
        try ada.setValue(.string("senior"), forKey: "grade")
        try ada.setValue(.data(Data(#"{"city":"London","street":"12 St James's Square"}"#.utf8)), forKey: "address")
        try ada.setObject(research, forKey: "department")
        let grace = try context.insertObject(forEntityName: "Employee")
        try grace.setValue("Grace", forKey: "firstName")
        try grace.setValue("Hopper", forKey: "lastName")
        try grace.setObject(ada, forKey: "manager")
        try grace.setObject(research, forKey: "department")
        try context.save()
        try stack.store.close()
    }

    /// Reads the document back as typed objects and checks every value.
    private func checkStaff(at url: URL, model: ManagedObjectModel) throws {
        let stack = try DocumentStack.open(url, model: model)
        defer { try? stack.store.close() }
        let employees = try stack.context.fetch(FetchRequest(entityName: "Employee", sortDescriptors: [FetchSortDescriptor("firstName")]), as: Employee.self)
        #expect(employees.map(\.firstName) == ["Ada", "Grace"])
        let ada = employees[0], grace = employees[1]
        #expect(ada.salary == 150_000 && grace.salary == 50_000)
        #expect(ada.grade == .senior && grace.grade == .junior)
        #expect(ada.address == Address(street: "12 St James's Square", city: "London"))
        #expect(ada.reports == [grace] && grace.manager === ada)
        #expect(ada.department?.name == "Research")
        #expect(ada.department?.employees == [ada, grace])
    }

    @Test("A document made with the @Entity model opens with the JSON model")
    func declaredToJSON() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try writeStaff(at: url, model: try staffModel())
        let json = try ManagedObjectModel(jsonData: Data(staffJSON.utf8))
        try json.register(Employee.self, forEntityName: "Employee")
        try json.register(Department.self, forEntityName: "Department")
        try checkStaff(at: url, model: json)
    }

    @Test("A document made with the JSON model opens with the @Entity model")
    func jsonToDeclared() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try writeStaff(at: url, model: try ManagedObjectModel(jsonData: Data(staffJSON.utf8)))
        try checkStaff(at: url, model: try staffModel())
    }

    @Test("A model that differs in storage does not open the document")
    func differentModelRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try writeStaff(at: url, model: try staffModel())
        let changed = staffJSON.replacingOccurrences(of: #"{"name": "level", "type": "integer16"},"#, with: "")
        #expect(throws: StrataError.self) {
            _ = try DocumentStack.open(url, model: try ManagedObjectModel(jsonData: Data(changed.utf8)))
        }
    }
}
