import Foundation
import Testing
@testable import Strata

/// Composite attributes (issue 19): read from Xcode and JSON models, read and written as one
/// value, fetched and sorted by element in memory and in SQL, undone, compacted, reopened.
@Suite struct CompositeAttributes {
    static func placesURL() throws -> URL {
        try #require(Bundle.module.url(forResource: "Places", withExtension: "xml", subdirectory: "Fixtures/composites"))
    }

    static func places() throws -> ManagedObjectModel { try ManagedObjectModel(xcdatamodelAt: placesURL()) }

    /// A model declared in code: Person with a composite `address` (city required).
    static func personModel() throws -> ManagedObjectModel {
        let address = CompositeAttributeDescription("address", elements: [
            AttributeDescription("city", .string, isOptional: false),
            AttributeDescription("zip", .string),
            AttributeDescription("floor", .integer16, defaultValue: .integer(0)),
        ])
        return try ManagedObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)], composites: [address]),
        ])
    }

    static func person(_ context: ManagedObjectContext, _ name: String, city: String, zip: String) throws -> ManagedObject {
        let person = try context.insertObject(forEntityName: "Person")
        try person.setValue(.string(name), forKey: "name")
        try person.setCompositeValue(["city": .string(city), "zip": .string(zip)], forKey: "address")
        return person
    }

    static func names(_ context: ManagedObjectContext, _ predicate: String, sortedBy key: String, ascending: Bool = true) throws -> [String] {
        let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: predicate),
                                   sortDescriptors: [FetchSortDescriptor(key, ascending: ascending)])
        return try context.fetch(request).map { object in
            guard case .string(let name) = try object.value(forKey: "name") else { return "?" }
            return name
        }
    }

    @Test func anXcode15ModelWithACompositeLoadsWithTypedOptionalAndDefaultedElements() throws {
        let model = try Self.places()
        let customer = try model.entity(named: "Customer")
        let address = try #require(customer.composite(named: "address"))
        #expect(address.typeName == "Address")
        #expect(address.elements.map(\.name) == ["city", "floor", "street", "zip"])
        #expect(address.elements.map(\.attributeType) == [.string, .integer16, .string, .string])
        #expect(address.elements.map(\.isOptional) == [false, true, true, true])
        #expect(address.elements[1].defaultValue == .integer(0))
        #expect(address.elements[3].maxLength == 10)
        // Stored as one attribute (and one slot) per element.
        #expect(customer.attributesByName["address.city"]?.compositeName == "address")
        #expect(customer.slot(forKey: "address.zip") != nil)
        #expect(customer.slot(forKey: "address") == nil)
        #expect(try model.entity(named: "Depot").composite(named: "location")?.elements.count == 4)
        #expect(model.versionHash.count == 64)
    }

    @Test func aCompositeRoundTripsThroughTheJSONModelWithTheSameVersionHash() throws {
        let model = try Self.places()
        let json = model.jsonRepresentation()
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"composites\""))
        let again = try ManagedObjectModel(jsonData: json)
        #expect(again.versionHash == model.versionHash)
        #expect(try again.entity(named: "Customer").composites == (try model.entity(named: "Customer").composites))
        #expect(again.jsonRepresentation() == json)
        // A composite changes what is stored, so it changes the hash.
        let plain = try ManagedObjectModel(entities: [EntityDescription("Person", attributes: [AttributeDescription("name", .string)])])
        #expect(plain.versionHash != (try Self.personModel().versionHash))
    }

    @Test func badCompositeDeclarationsAreClearModelErrors() throws {
        func xcode(_ body: String) throws -> StrataError {
            let directory = try TemporaryDirectory()
            let url = directory.url.appendingPathComponent("Bad.xml")
            try Data("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                \(body)
                </model>
                """.utf8).write(to: url)
            return try #require(throws: StrataError.self) { try ManagedObjectModel(xcdatamodelAt: url) }
        }
        let missing = try xcode("""
            <entity name="A"><attribute name="home" attributeType="Composite" composite="Adress"/></entity>
            <composite name="Address"><attribute name="city" attributeType="String"/></composite>
            """)
        #expect(missing.code == .modelFile)
        #expect(missing.message.contains("composite 'Adress' is not declared in the model (declared: Address)"))
        #expect(missing.context.entity == "A" && missing.context.key == "home" && missing.context.line == 3)
        let nested = try xcode("""
            <entity name="A"><attribute name="home" attributeType="Composite" composite="Address"/></entity>
            <composite name="Address"><attribute name="geo" attributeType="Composite" composite="Geo"/></composite>
            """)
        #expect(nested.code == .modelFile && nested.message.contains("composite 'Geo' is not declared in the model"), "\(nested.message)")
        let unnamed = try xcode(#"<entity name="A"><attribute name="home" attributeType="Composite"/></entity>"#)
        #expect(unnamed.message.contains("needs a 'composite'"))

        let twice = #expect(throws: StrataError.self) {
            try ManagedObjectModel(entities: [EntityDescription("P", attributes: [AttributeDescription("address", .string)], composites: [
                CompositeAttributeDescription("address", elements: [AttributeDescription("city", .string), AttributeDescription("city", .integer64)]),
            ])])
        }
        #expect(twice?.code == .invalidModel)
        #expect(twice?.problems.contains { $0.key == "address" && $0.reason.contains("used twice") } == true)
        let empty = #expect(throws: StrataError.self) {
            try ManagedObjectModel(entities: [EntityDescription("P", composites: [
                CompositeAttributeDescription("address", elements: []),
                CompositeAttributeDescription("geo", elements: [AttributeDescription("a.b", .string), AttributeDescription("x", .string, isTransient: true)]),
            ])])
        }
        let reasons = empty?.problems.map(\.reason) ?? []
        #expect(reasons.contains("composite attribute 'address' has no elements"))
        #expect(reasons.contains { $0.contains("element 'a.b'") && $0.contains("declare a nested composite instead") })
        #expect(reasons.contains { $0.contains("element 'x'") && $0.contains("cannot be transient") })

        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "P", "composites": [{"name": "address", "elements": [{"name": "geo", "elements": []}]}]}]}"#
        // A nested composite needs elements of its own.
        let nestedJSON = #expect(throws: StrataError.self) { try ManagedObjectModel(jsonData: Data(json.utf8)) }
        #expect(nestedJSON?.problems.contains { $0.reason == "composite attribute 'address.geo' has no elements" } == true,
                "\(String(describing: nestedJSON))")
    }

    @Test func aCompositeIsReadAndWrittenAsAWholeAndByElement() throws {
        let model = try Self.personModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        let ada = try context.insertObject(forEntityName: "Person")
        // A new object starts with the elements' defaults.
        #expect(try ada.compositeValue(forKey: "address") == ["city": .null, "zip": .null, "floor": .integer(0)])
        try ada.setCompositeValue(["city": "Oslo", "zip": "0150"], forKey: "address")
        #expect(try ada.compositeValue(forKey: "address") == ["city": "Oslo", "zip": "0150", "floor": .null])
        #expect(try ada.value(forKeyPath: "address.city") == .single("Oslo"))
        #expect(try ada.value(forKey: "address.zip") == "0150")
        // Typed keys: the whole and one element.
        let address = CompositeKey("address")
        let city = address.element("city", as: String?.self)
        #expect(ada[city] == "Oslo")
        ada[city] = "Bergen"
        #expect(try ada.compositeValue(for: address)?["city"] == "Bergen")
        try ada.setCompositeValue(["city": "Oslo", "floor": .integer(3)], for: address)
        #expect(try ada.value(forKey: "address.floor") == .integer(3))
        try context.save()

        // Bad values name the composite and element, and change nothing.
        let unknown = #expect(throws: StrataError.self) { try ada.setCompositeValue(["city": "Rome", "town": "x"], forKey: "address") }
        #expect(unknown?.code == .unknownKey)
        #expect(unknown?.message.contains("Composite attribute 'Person.address' has no element 'town' (elements: city, zip, floor)") == true)
        let mistyped = #expect(throws: StrataError.self) { try ada.setCompositeValue(["city": "Rome", "floor": "high"], forKey: "address") }
        #expect(mistyped?.code == .typeMismatch)
        #expect(mistyped?.context.key == "address.floor")
        #expect(mistyped?.message.contains("element 'floor' of composite attribute 'address'") == true)
        let noComposite = #expect(throws: StrataError.self) { try ada.compositeValue(forKey: "adress") }
        #expect(noComposite?.message.contains("no composite attribute 'adress' (composites: address)") == true)
        let noElement = #expect(throws: StrataError.self) { try ada.value(forKeyPath: "address.town") }
        #expect(noElement?.code == .unknownKey)
        #expect(try ada.value(forKey: "address.city") == "Oslo")
        #expect(!context.hasChanges)

        // Each element keeps its own optionality: a required city is checked at save.
        try ada.setCompositeValue(["zip": "0150"], forKey: "address")
        let invalid = #expect(throws: StrataError.self) { try context.save() }
        #expect(invalid?.problems.contains { $0.key == "address.city" } == true)
        context.rollback()
        // nil clears every element, and reads back as nil.
        let bob = try context.insertObject(forEntityName: "Person")
        try bob.setCompositeValue(nil, forKey: "address")
        #expect(try bob.compositeValue(forKey: "address") == nil)
    }

    @Test func fetchAndSortByAnElementInMemory() throws {
        let model = try Self.personModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try Self.person(context, "Ada", city: "Oslo", zip: "0150")
        _ = try Self.person(context, "Bo", city: "Bergen", zip: "5003")
        _ = try Self.person(context, "Cy", city: "Oslo", zip: "0001")
        #expect(try Self.names(context, "address.city == 'Oslo'", sortedBy: "address.zip") == ["Cy", "Ada"])
        try context.save()
        let fresh = ManagedObjectContext(coordinator: coordinator)
        #expect(try Self.names(fresh, "address.city == 'Oslo'", sortedBy: "address.zip") == ["Cy", "Ada"])
        #expect(try Self.names(fresh, "address.zip BEGINSWITH '0'", sortedBy: "address.zip", ascending: false) == ["Ada", "Cy"])
        let badSort = #expect(throws: StrataError.self) {
            try fresh.fetch(FetchRequest(entityName: "Person", sortDescriptors: [FetchSortDescriptor("address.town")]))
        }
        #expect(badSort?.message.contains("town") == true)
    }

    @Test func aDocumentStoresElementsAsColumnsAndFetchesThemInSQLAfterCompactionAndReopen() throws {
        let model = try Self.personModel()
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try DocumentStack.create(url, model: model, configuration: manualCompaction())
            _ = try Self.person(stack.context, "Ada", city: "Oslo", zip: "0150")
            _ = try Self.person(stack.context, "Bo", city: "Bergen", zip: "5003")
            try stack.context.save()
            _ = try Self.person(stack.context, "Cy", city: "Oslo", zip: "0001")
            try stack.context.save()
            // From the log (before compaction), in a fresh context.
            #expect(try Self.names(stack.newContext(), "address.city == 'Oslo'", sortedBy: "address.zip") == ["Cy", "Ada"])
            try stack.store.compact()
            #expect(try Self.names(stack.newContext(), "address.city == 'Oslo'", sortedBy: "address.zip") == ["Cy", "Ada"])
            try stack.store.close()
        }
        let stack = try DocumentStack.open(url, model: model, configuration: manualCompaction())
        // The snapshot table has one column per element.
        let columns = try SnapshotSchema(model: model).table(for: try model.entity(named: "Person")).columns.map(\.name)
        #expect(columns.contains("address.city") && columns.contains("address.zip") && columns.contains("address.floor"))
        #expect(try Self.names(stack.context, "address.city == 'Oslo' AND address.floor == 0", sortedBy: "address.zip", ascending: false) == [])
        #expect(try Self.names(stack.context, "address.city == 'Oslo'", sortedBy: "address.zip", ascending: false) == ["Ada", "Cy"])
        #expect(try Self.names(stack.context, "address.city != 'Oslo'", sortedBy: "name") == ["Bo"])
        let ada = try #require(try stack.context.fetch(FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "name == 'Ada'"))).first)
        #expect(try ada.compositeValue(forKey: "address") == ["city": "Oslo", "zip": "0150", "floor": .null])
        try stack.store.close()
    }

    /// `address == nil` holds when every element is NULL (Core Data's nil composite), the
    /// same in memory, in an in-memory store and in a document's SQL (no residual).
    @Test(arguments: BatchStoreKind.allCases)
    func aCompositeIsNilWhenEveryElementIsInMemoryAndInSQL(kind: BatchStoreKind) throws {
        let address = CompositeAttributeDescription("address", elements: [
            AttributeDescription("city", .string), AttributeDescription("zip", .string),
        ])
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)], composites: [address]),
        ])
        let fixture = try BatchFixture(kind, model: model)
        let context = fixture.fresh()
        _ = try Self.person(context, "Ada", city: "Oslo", zip: "0150")
        let bo = try context.insertObject(forEntityName: "Person")
        try bo.setValue("Bo", forKey: "name")
        let cy = try context.insertObject(forEntityName: "Person")
        try cy.setValue("Cy", forKey: "name")
        try cy.setCompositeValue(["zip": "5003"], forKey: "address")   // one element set: not nil
        #expect(try Self.names(context, "address == nil", sortedBy: "name") == ["Bo"])
        try context.save()
        let fresh = fixture.fresh()
        #expect(try Self.names(fresh, "address == nil", sortedBy: "name") == ["Bo"])
        #expect(try Self.names(fresh, "address != nil", sortedBy: "name") == ["Ada", "Cy"])
        #expect(try Self.names(fresh, "address == nil OR address.city == 'Oslo'", sortedBy: "name") == ["Ada", "Bo"])
        let translator = SQLPredicateTranslator(schema: try SnapshotSchema(model: model), storeTag: 1)
        let plan = try translator.plan(for: StoreFetchRequest(
            entity: try model.entity(named: "Person"), predicate: try FetchPredicate(format: "address != nil"),
            sortDescriptors: [], fetchLimit: 0, fetchOffset: 0))
        #expect(plan.residual == nil)
        #expect(plan.select.sql.contains("\"address.city\" IS NULL AND"), "\(plan.select.sql)")
    }

    @Test func theSQLTranslatorMapsAnElementKeyPathToItsColumnWithNoResidual() throws {
        let model = try Self.personModel()
        let translator = SQLPredicateTranslator(schema: try SnapshotSchema(model: model), storeTag: 1)
        let plan = try translator.plan(for: StoreFetchRequest(
            entity: try model.entity(named: "Person"), predicate: try FetchPredicate(format: "address.city == 'Oslo'"),
            sortDescriptors: [FetchSortDescriptor("address.zip")], fetchLimit: 0, fetchOffset: 0))
        #expect(plan.residual == nil)
        #expect(plan.select.sql.contains("\"address.city\""), "\(plan.select.sql)")
        #expect(plan.select.sql.contains("ORDER BY t.\"address.zip\" ASC"), "\(plan.select.sql)")
    }

    @Test func settingAWholeCompositeIsOneUndoStepInADocument() throws {
        let model = try Self.personModel()
        let stack = try DocumentStack(model: model)
        let ada = try Self.person(stack.context, "Ada", city: "Oslo", zip: "0150")
        stack.undo.setActionName("Hire")
        try stack.context.save()
        try ada.setCompositeValue(["city": "Bergen", "zip": "5003", "floor": .integer(2)], forKey: "address")
        stack.undo.setActionName("Move")
        try stack.context.save()
        #expect(stack.undo.undoGroups.map(\.actionName) == ["Hire", "Move"])
        try stack.undo.undo()
        #expect(try ada.compositeValue(forKey: "address") == ["city": "Oslo", "zip": "0150", "floor": .null])
        try stack.context.save()
        try stack.undo.redo()
        #expect(try ada.compositeValue(forKey: "address") == ["city": "Bergen", "zip": "5003", "floor": .integer(2)])
        try stack.context.save()
        try stack.store.compact()
        try stack.reopen()
        #expect(try Self.names(stack.context, "address.city == 'Bergen' AND address.floor == 2", sortedBy: "name") == ["Ada"])
    }
}
