import Foundation
import Testing
@testable import Strata

/// `Gadget` with a name and a count; variants add things or change only defaults.
private func gadgetModel(extraAttribute: Bool = false, extraEntity: Bool = false, changedDefaults: Bool = false,
                         countType: AttributeType = .integer64) -> ManagedObjectModel {
    var attributes = [
        AttributeDescription("name", .string, isOptional: !changedDefaults, defaultValue: changedDefaults ? "unnamed" : .null,
                             maxLength: changedDefaults ? 40 : nil),
        AttributeDescription("count", countType, defaultValue: changedDefaults ? .integer(7) : .null,
                             minValue: changedDefaults ? .integer(0) : nil),
    ]
    if extraAttribute { attributes.append(AttributeDescription("color", .string)) }
    var entities = [EntityDescription("Gadget", attributes: attributes)]
    if extraEntity { entities.append(EntityDescription("Widget", attributes: [AttributeDescription("size", .double)])) }
    return try! ManagedObjectModel(entities: entities)
}

@Suite struct DocumentIdentity {
    @Test func temporaryIDsBecomePermanentAndTheirURIsResolveAfterReopen() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var uris: [URL] = []
        var storeIdentifier = ""
        do {
            let stack = try DocumentStack.create(url)
            let department = try insertNamed("Department", "Research", in: stack.context)
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue("Ada", forKey: "firstName")
            try employee.setValue("Lovelace", forKey: "lastName")
            try employee.setObject(department, forKey: "department")
            #expect(department.objectID.isTemporaryID && employee.objectID.isTemporaryID)
            #expect(employee.objectID.uriRepresentation().absoluteString.hasPrefix("x-strata:///Employee/t"))
            let early = try stack.context.insertObject(forEntityName: "Project")
            try early.setValue("Early", forKey: "name")
            try stack.context.obtainPermanentIDs(for: [early])
            #expect(!early.objectID.isTemporaryID)
            let earlyID = early.objectID
            try stack.context.save()
            #expect(early.objectID == earlyID, "an ID obtained before the save is kept")
            for object in [department, employee, early] {
                #expect(!object.objectID.isTemporaryID)
                #expect(object.objectID.storeIdentifier == stack.store.identifier)
                let uri = object.objectID.uriRepresentation()
                #expect(uri.absoluteString.hasPrefix("x-strata://\(stack.store.identifier)/\(object.entity.name)/p"))
                #expect(try stack.coordinator.managedObjectID(forURIRepresentation: uri) == object.objectID)
                uris.append(uri)
            }
            // The department's employees point at the permanent ID, not the temporary one.
            #expect(try department.value(forKey: "employees") == .objects([employee.objectID]))
            storeIdentifier = stack.store.identifier
            try stack.store.close()
        }
        for _ in 0..<2 {
            let stack = try DocumentStack.open(url)
            #expect(stack.store.identifier == storeIdentifier)
            let objects = try uris.map { try stack.object($0) }
            #expect(objects.map { $0.objectID.uriRepresentation() } == uris)
            #expect(try objects[1].related("department") === objects[0])
            #expect(try objects[2].string("name") == "Early")
            try stack.store.close()
        }
    }

    @Test func aURIOfAnotherDocumentOrARecordThatIsGoneDoesNotResolveToAnObject() throws {
        let directory = try TemporaryDirectory()
        let first = try DocumentStack.create(directory.file("a.strata"))
        let second = try DocumentStack.create(directory.file("b.strata"))
        let project = try insertNamed("Project", "P", in: first.context)
        try first.context.save()
        let uri = project.objectID.uriRepresentation()
        let error = strataError { _ = try second.coordinator.managedObjectID(forURIRepresentation: uri) }
        #expect(error?.code == .invalidObjectID)
        first.context.delete(project)
        try first.context.save()
        let id = try first.coordinator.managedObjectID(forURIRepresentation: uri)
        #expect(strataError { _ = try ManagedObjectContext(coordinator: first.coordinator).existingObject(with: id) }?.code == .objectNotFound)
    }

    @Test(arguments: [DocumentStore.HistoryRetention.all, .none])
    func keysAreNeverReusedAcrossReopenEvenAfterTheNewestRecordIsDeleted(retention: DocumentStore.HistoryRetention) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var configuration = DocumentStore.Configuration()
        configuration.retention = retention
        var largest: Int64 = 0
        do {
            let stack = try DocumentStack.create(url, configuration: configuration)
            var employees: [ManagedObject] = []
            for index in 0..<5 {
                let employee = try stack.context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("E\(index)"), forKey: "firstName")
                try employee.setValue("X", forKey: "lastName")
                employees.append(employee)
            }
            try stack.context.save()
            largest = employees.map(\.objectID.primaryKey).max() ?? 0
            #expect(largest == 5)
            for employee in employees.suffix(2) { stack.context.delete(employee) }
            try stack.context.save()
            try stack.store.close()   // compacts: the deleted rows leave the snapshot
        }
        #expect(try sqlRows(url, "SELECT MAX(_pk) FROM Person").first?.first == .integer(3))
        let stack = try DocumentStack.open(url, configuration: configuration)
        let employee = try stack.context.insertObject(forEntityName: "Employee")
        try employee.setValue("New", forKey: "firstName")
        try employee.setValue("X", forKey: "lastName")
        try stack.context.save()
        #expect(employee.objectID.primaryKey > largest)
        // Departments have their own hierarchy and counter.
        let department = try insertNamed("Department", "D", in: stack.context)
        try stack.context.save()
        #expect(department.objectID.primaryKey == 1)
        try stack.store.close()
    }

    @Test func anObjectKeepsItsTemporaryIDUntilASaveSucceeds() throws {
        let directory = try TemporaryDirectory()
        let stack = try DocumentStack.create(directory.file())
        let invalid = try stack.context.insertObject(forEntityName: "Employee")   // no names: invalid
        #expect(strataError { try stack.context.save() }?.code == .validation)
        #expect(invalid.objectID.isTemporaryID)
        try invalid.setValue("A", forKey: "firstName")
        try invalid.setValue("B", forKey: "lastName")
        try stack.context.save()
        let again = try stack.context.insertObject(forEntityName: "Employee")
        try again.setValue("C", forKey: "firstName")
        try again.setValue("D", forKey: "lastName")
        try stack.context.save()
        #expect(again.objectID.primaryKey > invalid.objectID.primaryKey)
    }
}

@Suite struct DocumentModelCompatibility {
    private func document(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file()
        let stack = try DocumentStack.create(url, model: gadgetModel())
        let gadget = try insertNamed("Gadget", "g", in: stack.context)
        try gadget.setValue(.integer(3), forKey: "count")
        try stack.context.save()
        try stack.store.close()
        return url
    }

    @Test(arguments: ["attribute", "entity", "type"])
    func aModelThatChangesStorageIsRefusedWithAClearMessage(change: String) throws {
        let directory = try TemporaryDirectory()
        let url = try document(in: directory)
        let model = switch change {
        case "attribute": gadgetModel(extraAttribute: true)
        case "entity": gadgetModel(extraEntity: true)
        default: gadgetModel(countType: .double)
        }
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: model) })
        #expect(error.code == .modelIncompatible)
        #expect(error.message.lowercased().contains("model incompatible with the one used to create the store"))
        #expect(error.context.path == url.path)
        // The refused open changed nothing: the original model still opens it.
        let stack = try DocumentStack.open(url, model: gadgetModel())
        #expect(try stack.store.info().objectCounts["Gadget"] == 1)
        try stack.store.close()
    }

    @Test func aModelThatChangesOnlyDefaultsAndConstraintsOpensTheDocument() throws {
        let directory = try TemporaryDirectory()
        let url = try document(in: directory)
        let model = gadgetModel(changedDefaults: true)
        let stack = try DocumentStack.open(url, model: model)
        let gadgets = try stack.store.objectIDs(for: model.entity(named: "Gadget"), includingSubentities: false)
        let existing = try #require(gadgets.first)
        #expect(try stack.context.existingObject(with: existing).int("count") == 3)
        let fresh = try stack.context.insertObject(forEntityName: "Gadget")
        #expect(try fresh.int("count") == 7, "the new default applies to new objects")
        try stack.context.save()
        try stack.store.close()
    }

    @Test func toolsOpenADocumentWithTheModelStoredInIt() throws {
        let directory = try TemporaryDirectory()
        let url = try document(in: directory)
        let stored = try DocumentStore.storedModel(at: url)
        #expect(stored.versionHash == gadgetModel().versionHash)
        let store = try DocumentStore(openingAt: url)
        #expect(try store.info().objectCounts["Gadget"] == 1)
        try store.close()
    }
}
