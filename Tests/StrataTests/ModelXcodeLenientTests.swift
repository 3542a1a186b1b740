import Foundation
import Testing
import Strata
import StrataTestSupport

/// docs/MODEL-FORMAT.md, "Lenient and strict": what Xcode writes loads; an element Strata
/// cannot honour and that changes no stored data is left out with a warning
/// (`loadWarnings`); one that would change stored data is refused.
@Suite struct ModelXcodeLenient {
    private func fixture(_ name: String) throws -> ManagedObjectModel {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "xml", subdirectory: "Fixtures/xcdatamodels"))
        return try ManagedObjectModel(xcdatamodelAt: url)
    }

    /// An `.xcdatamodel` folder holding `contents`.
    private func model(_ entities: String, in directory: TemporaryDirectory) throws -> ManagedObjectModel {
        let folder = directory.file("Model.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
            systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            \(entities)
            </model>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        return try ManagedObjectModel(xcdatamodelAt: folder)
    }

    @Test func aCompositeWithAnEmptyNestedCompositeLoadsWithoutIt() throws {
        let model = try fixture("Strata__EmptyNestedComposite")
        let entity = try model.entity(named: "Entity")
        let composite = try #require(entity.composites.first { $0.name == "attribute1" })
        #expect(composite.elements.map(\.name).sorted() == ["one", "two"])
        #expect(composite.composites.isEmpty)
        #expect(model.loadWarnings.count == 1)
        #expect(model.loadWarnings.first?.contains("'three'") == true)
        #expect(model.loadWarnings.first?.contains("has no elements") == true)

        // The rest is usable: the composite's elements are stored and read back.
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        let object = try context.insertObject(forEntityName: "Entity")
        try object.setCompositeValue(["one": .string("a"), "two": .integer(2)], forKey: "attribute1")
        try context.save()
        #expect(try object.compositeValue(forKey: "attribute1")?["one"] == .string("a"))
    }

    @Test func aDerivedDoubleOfNowStoresSecondsSince2001() throws {
        let model = try fixture("Strata__DerivedDoubleNow")
        #expect(model.loadWarnings.isEmpty)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        let note = try context.insertObject(forEntityName: "Note")
        try note.setValue("hello", forKey: "text")
        let before = Date().timeIntervalSinceReferenceDate
        try context.save()
        let after = Date().timeIntervalSinceReferenceDate
        guard case .double(let seconds) = try note.value(forKey: "touched"),
              case .date(let date) = try note.value(forKey: "touchedDate") else {
            Issue.record("touched: \(try note.value(forKey: "touched")), touchedDate: \(try note.value(forKey: "touchedDate"))")
            return
        }
        #expect(seconds >= before.rounded(.down) - 1 && seconds <= after + 1)
        #expect(abs(date.timeIntervalSinceReferenceDate - seconds) < 1)
    }

    @Test func aTransientAttributeOfATypeStrataDoesNotModelIsLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let model = try model("""
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
            </entity>
            """, in: directory)
        #expect(try model.entity(named: "Item").attributes.map(\.name) == ["name"])
        #expect(model.loadWarnings.count == 1 && model.loadWarnings[0].contains("'scratch'"))

        // The document keeps them with its model (docs/FORMAT.md, "Model warnings").
        let url = directory.file("items.strata")
        try DocumentStore(creatingAt: url, model: model).close()
        #expect(try DocumentStore.storedModel(at: url).loadWarnings == model.loadWarnings)
    }

    @Test func aValidationConstraintThatCannotBeReadIsLeftOutWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let model = try model("""
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="done" optional="YES" attributeType="Boolean" minValueString="0" usesScalarValueType="YES"/>
                <attribute name="count" optional="YES" attributeType="Integer 16" maxValueString="lots" usesScalarValueType="YES"/>
            </entity>
            """, in: directory)
        let entity = try model.entity(named: "Item")
        #expect(entity.attributes.map(\.name).sorted() == ["count", "done"])
        #expect(model.loadWarnings.count == 2)
    }

    @Test func whatWouldChangeStoredDataIsStillRefused() throws {
        let directory = try TemporaryDirectory()
        // A stored attribute of a type Strata does not model.
        #expect(throws: StrataError.self) {
            try model("""
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="blob" optional="YES" attributeType="Undefined"/>
                </entity>
                """, in: directory)
        }
        // A default value decides what new objects store.
        let other = try TemporaryDirectory()
        #expect(throws: StrataError.self) {
            try model("""
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="many"/>
                </entity>
                """, in: other)
        }
    }
}
