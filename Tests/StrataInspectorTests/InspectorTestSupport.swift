import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// A small staff document the inspector tests read: five saves by two authors, with
/// action names, an undo, and a value holding markup.
///
/// Saves: 1 "Found Research" (ada: Research, Ada, Grace); 2 "Raise Ada" (ada: salary
/// 100 → 150000); 3 "Hire hostile" (bob: Employee whose lastName is a script tag, in
/// Research); 4 the undo of 3 (bob); 5 "Add Alan" (bob: Alan, 30 employees for paging).
final class InspectorFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let url: URL

    /// The lastName of the hostile employee, which every view must show as text.
    static let hostileName = "<script>alert('x')</script><img src=x onerror=alert(1)>"

    init() throws {
        directory = try TemporaryDirectory()
        url = directory.file("staff.strata")
        let stack = try DocumentStack.create(url)
        let context = stack.context
        context.name = "editor"

        context.transactionAuthor = "ada"
        let research = try context.insertObject(forEntityName: "Department")
        try research.setValue("Research", forKey: "name")
        let ada = try Self.employee("Ada", "Lovelace", salary: 100, in: context, department: research)
        _ = try Self.employee("Grace", "Hopper", salary: 120_000, in: context, department: research)
        try save(context, "Found Research")

        try ada.setValue(.integer(150_000), forKey: "salary")
        try save(context, "Raise Ada")

        context.transactionAuthor = "bob"
        _ = try Self.employee("Mallory", Self.hostileName, salary: 1, in: context, department: research)
        try save(context, "Hire hostile")
        try context.undoManager?.undo()
        try context.save()

        for index in 0..<30 {
            _ = try Self.employee(index == 0 ? "Alan" : "Clerk\(index)", index == 0 ? "Turing" : "Number\(index)",
                                  salary: Int64(1_000 + index), in: context, department: research)
        }
        try save(context, "Add Alan")
        try stack.store.close()
    }

    private func save(_ context: ManagedObjectContext, _ action: String) throws {
        context.processPendingChanges()
        context.undoManager?.setActionName(action)
        try context.save()
    }

    private static func employee(_ first: String, _ last: String, salary: Int64, in context: ManagedObjectContext,
                                 department: ManagedObject) throws -> ManagedObject {
        let employee = try context.insertObject(forEntityName: "Employee")
        try employee.setValue(.string(first), forKey: "firstName")
        try employee.setValue(.string(last), forKey: "lastName")
        try employee.setValue(.integer(salary), forKey: "salary")
        try employee.setObject(department, forKey: "department")
        return employee
    }

    /// An API over the document, opened read-only; closed by `body`'s end.
    func withAPI<T>(_ body: (InspectorAPI) throws -> T) throws -> T {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        return try body(InspectorAPI(document: document))
    }
}

/// One answer parsed: its status and JSON body.
struct ParsedAnswer {
    var status: Int
    var json: [String: Any]
    var error: String? { json["error"] as? String }

    init(_ answer: InspectorAPI.Answer) throws {
        status = answer.status
        json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
    }
}

extension InspectorAPI {
    /// Answers `path` with the parameters given, parsed.
    func get(_ path: String, _ parameters: [String: String] = [:]) throws -> ParsedAnswer {
        try ParsedAnswer(answer(path: path, parameters: parameters))
    }
}

extension InspectorFixture {
    /// Two versions of a one-entity model, the second adding an attribute: the smallest
    /// migration, for documents whose history spans two model versions.
    static func itemModels() throws -> (ManagedObjectModel, ManagedObjectModel) {
        let v1 = try ManagedObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("name", .string)])],
                                        versionIdentifier: "items-1")
        let v2 = try ManagedObjectModel(entities: [EntityDescription("Item", attributes: [
            AttributeDescription("name", .string), AttributeDescription("note", .string),
        ])], versionIdentifier: "items-2")
        return (v1, v2)
    }
}
