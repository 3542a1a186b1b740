import Foundation
import Testing
@testable import Strata

@Suite struct ModelXcodeImport {
    @Test(arguments: ModelFixtures.xcodeFixtureNames)
    func everyXcodeFixtureLoads(_ name: String) throws {
        let model = try ModelFixtures.xcodeModel(name)
        #expect(!model.entities.isEmpty)
        #expect(model.versionHash.count == 64)
    }

    @Test func coreDataPlusSampleModelKeepsItsThreeLevelInheritanceAndConstraints() throws {
        let model = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel")
        #expect(model.entities.map(\.name) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
        #expect(model.versionIdentifier == "1")
        let expensive = try model.entity(named: "ExpensiveSportCar")
        #expect(expensive.superentity?.name == "SportCar")
        #expect(expensive.superentity?.superentity?.name == "Car")
        #expect(expensive.rootEntity.name == "Car")
        #expect(expensive.slotNames.first == "color")
        #expect(expensive.slotNames.last == "isLimitedEdition")
        let car = try model.entity(named: "Car")
        let speed = try #require(car.attributesByName["currentDrivingSpeed"])
        #expect(speed.attributeType == .integer64)
        #expect(speed.isTransient)
        #expect(speed.defaultValue == .integer(0))
        let color = try #require(car.attributesByName["color"])
        #expect(color.attributeType == .transformable)
        #expect(color.valueTransformerName == "ColorTransformer")
        #expect(car.attributesByName["numberPlate"]?.isOptional == false)
        let owner = try #require(car.relationshipsByName["owner"])
        #expect(!owner.isToMany && owner.inverseName == "cars" && owner.deleteRule == .nullify)
        let person = try model.entity(named: "Person")
        #expect(person.attributesByName["id"]?.attributeType == .uuid)
        #expect(person.attributesByName["isDriving"]?.defaultValue == .boolean(false))
        #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(person.representedClassName == "Person")
        #expect(person.relationshipsByName["cars"]?.isToMany == true)
    }

    @Test func coreDataPlusVersionThreeCarriesTheRenamingIdentifierAndManyToMany() throws {
        let model = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel3")
        #expect(model.entities.count == 5)
        #expect(model.versionIdentifier == "3")
        #expect(model.entitiesByName["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
        #expect(model.entitiesByName["ExpensiveSportCar"] == nil)
        let previousOwners = try #require(model.entitiesByName["Car"]?.relationshipsByName["previousOwners"])
        #expect(previousOwners.isToMany && previousOwners.inverseName == "previousCars")
        #expect(model.entitiesByName["Person"]?.relationshipsByName["previousCars"]?.isToMany == true)
        #expect(model.entitiesByName["Maker"]?.uniquenessConstraints == [["name"]])
    }

    @Test func coreStoreModelHasTwoConfigurationsAndOrderedSelfRelationships() throws {
        let model = try ModelFixtures.xcodeModel("CoreStore__Model")
        #expect(model.configurations == ["Config1": ["TestEntity1AAA"], "Config2": ["TestEntity2"]])
        #expect(model.entities(forConfiguration: "Config2").map(\.name) == ["TestEntity2"])
        #expect(model.versionIdentifier == nil)
        let second = try model.entity(named: "TestEntity2")
        let ordered = try #require(second.relationshipsByName["testToManyOrdered"])
        #expect(ordered.isToMany && ordered.isOrdered && ordered.destinationEntityName == "TestEntity2")
        #expect(ordered.inverseSlot == second.slot(forKey: "testToOne"))
        let unordered = try #require(model.entitiesByName["TestEntity1AAA"]?.relationshipsByName["testToManyUnordered"])
        #expect(unordered.isToMany && !unordered.isOrdered)
        #expect(second.attributesByName["testDecimal"]?.attributeType == .decimal)
        #expect(second.attributesByName["testData"]?.attributeType == .binaryData)
        #expect(second.representedClassName == ".TestEntity2")
    }

    @Test func magicalRecordModelKeepsDefaultsUserInfoAndInverselessRelationships() throws {
        let model = try ModelFixtures.xcodeModel("MagicalRecord__TestModel")
        #expect(model.entities.count == 12)
        #expect(model.entitiesByName["AbstractRelatedEntity"]?.isAbstract == true)
        #expect(model.entitiesByName["ConcreteRelatedEntity"]?.isAbstract == false)
        #expect(model.entitiesByName["ConcreteRelatedEntity"]?.superentity?.name == "AbstractRelatedEntity")
        let plain = try model.entity(named: "SingleEntityWithNoRelationships")
        #expect(plain.attributesByName["decimalTestAttribute"]?.defaultValue == .decimal(0))
        #expect(plain.attributesByName["doubleTestAttribute"]?.defaultValue == .double(0))
        #expect(plain.attributesByName["floatTestAttribute"]?.defaultValue == .double(0))
        #expect(plain.attributesByName["nullTestAttribute"]?.defaultValue == .integer(100))
        #expect(plain.attributesByName["notInJsonAttribute"]?.defaultValue == .string("Set From Core Data Model Editor"))
        #expect(plain.attributesByName["dateWithCustomFormat"]?.userInfo == ["dateFormat": "M/d/yyyy H-mm-ss"])
        let secondary = try model.entity(named: "SingleEntityRelatedToMappedEntityWithSecondaryMappings")
        #expect(secondary.attributesByName["notImportedAttribute"]?.defaultValue == .boolean(true))
        #expect(secondary.attributesByName["notImportedAttribute"]?.isOptional == false)
        let mapped = try #require(secondary.relationshipsByName["mappedRelationship"])
        #expect(mapped.inverseName == nil && mapped.inverseSlot == nil)
        #expect(!mapped.isToMany && mapped.minCount == 1 && mapped.maxCount == 1 && mapped.isOptional)
        #expect(mapped.deleteRule == .cascade)
        #expect(mapped.userInfo["mappedKeyName.2"] == "actualRelatedObject")
        #expect(model.entitiesByName["MappedEntity"]?.userInfo == ["relatedByAttribute": "mapped"])
    }

    @Test func mogeneratorModelHasTemplatesWithVariablesAndATreeUnderHuman() throws {
        let model = try ModelFixtures.xcodeModel("mogenerator__test")
        #expect(model.entities.count == 9)
        #expect(model.fetchRequestTemplatesByName.keys.sorted() ==
            ["allHumans", "byHumanName", "byParent", "byParentName", "oneByHumanName"])
        #expect(model.fetchRequestTemplatesByName["byParentName"]?.predicateFormat == "parent.parentName == $parentName")
        #expect(model.fetchRequestTemplatesByName["byParent"]?.entityName == "Child")
        #expect(model.fetchRequestTemplatesByName["allHumans"]?.predicateFormat == "TRUEPREDICATE")
        let human = try model.entity(named: "Human")
        #expect(Set(human.subentities.map(\.name)) == ["Child", "Parent", "Uncle"])
        #expect(human.userInfo["key with.dots..."] == "value with \"quotes\"")
        let age = try #require(human.attributesByName["age"])
        #expect(age.minValue == .integer(0) && age.defaultValue == .integer(0) && !age.isOptional)
        #expect(age.userInfo == ["mogenerator.readonly": "true"])
        let parent = try model.entity(named: "Parent")
        #expect(parent.attributesByName["myInt16Transient"]?.isTransient == true)
        let children = try #require(parent.relationshipsByName["children"])
        #expect(children.isToMany && !children.isOrdered && children.deleteRule == .cascade && children.inverseName == nil)
        let ordered = try #require(parent.relationshipsByName["orderedChildren"])
        #expect(ordered.isOrdered && ordered.inverseName == "parent")
        #expect(model.entitiesByName["EntitySansCustomClass"]?.representedClassName == "NSManagedObject")
        #expect(model.entitiesByName["ConcreteEntityWithCustomClass1"]?.slotNames == ["dummy1", "dummy2"])
    }

    @Test func freeCoreDataModelMapsNoActionAndAbstractPerson() throws {
        let model = try ModelFixtures.xcodeModel("FreeCoreData__EmployeeDirectory")
        #expect(model.entities.count == 5)
        #expect(model.entitiesByName["Person"]?.isAbstract == true)
        let employee = try model.entity(named: "Employee")
        #expect(employee.relationshipsByName["department"]?.deleteRule == .noAction)
        #expect(employee.relationshipsByName["projects"]?.inverseName == "members")
        let salary = try #require(employee.attributesByName["salary"])
        #expect(salary.attributeType == .integer32 && salary.minValue == .integer(0) && !salary.isOptional)
        #expect(employee.attributesByName["fullName"]?.isTransient == true)
        #expect(employee.slotNames == ["birthDate", "firstName", "fullName", "lastName", "salary", "department", "projects"])
        #expect(model.entitiesByName["Contractor"]?.representedClassName == "EDContractor")
    }

    @Test func anXcdatamodeldFolderUsesTheVersionNamedByXccurrentversion() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let bundle = directory.appendingPathComponent("SampleModel.xcdatamodeld")
        for (fixture, version) in [("CoreDataPlus__SampleModel", "SampleModel"), ("CoreDataPlus__SampleModel3", "SampleModel3"),
                                   ("CoreStore__Model", "SampleModel2")] {
            let folder = bundle.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: ModelFixtures.xcodeFixtureURL(fixture),
                                             to: folder.appendingPathComponent("contents"))
        }
        // Without .xccurrentversion: the last by name, numbers compared numerically.
        #expect(try ManagedObjectModel(xcdatamodelAt: bundle).versionIdentifier == "3")
        let plist: [String: Any] = ["_XCCurrentVersionName": "SampleModel.xcdatamodel"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let current = try ManagedObjectModel(xcdatamodelAt: bundle)
        #expect(current.versionIdentifier == "1")
        #expect(current.entitiesByName["ExpensiveSportCar"] != nil)
        #expect(try ManagedObjectModel(contentsOf: bundle).versionIdentifier == "1")
        let single = bundle.appendingPathComponent("SampleModel3.xcdatamodel")
        #expect(try ManagedObjectModel(xcdatamodelAt: single).versionIdentifier == "3")
        #expect(try ManagedObjectModel(contentsOf: single).entitiesByName["Maker"] != nil)

        let empty = directory.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let noContents = try #require(throws: StrataError.self) { try ManagedObjectModel(xcdatamodelAt: empty) }
        #expect(noContents.message.contains("has no contents file"))

        let missing: [String: Any] = ["_XCCurrentVersionName": "Gone.xcdatamodel"]
        try PropertyListSerialization.data(fromPropertyList: missing, format: .xml, options: 0)
            .write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(xcdatamodelAt: bundle) }
        #expect(error.code == .modelFile && error.context.model == "Gone.xcdatamodel")
    }

    @Test func contentsOfDispatchesByExtensionAndContent() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let model = try ModelFixtures.employeeModel()
        let json = directory.appendingPathComponent("Employees.json")
        try model.jsonRepresentation().write(to: json)
        #expect(try ManagedObjectModel(contentsOf: json).versionHash == model.versionHash)
        let sniffedJSON = directory.appendingPathComponent("Employees.model")
        try model.jsonRepresentation().write(to: sniffedJSON)
        #expect(try ManagedObjectModel(contentsOf: sniffedJSON).versionHash == model.versionHash)
        let sniffedXML = directory.appendingPathComponent("contents")
        try FileManager.default.copyItem(at: ModelFixtures.xcodeFixtureURL("CoreStore__Model"), to: sniffedXML)
        #expect(try ManagedObjectModel(contentsOf: sniffedXML).configurations.count == 2)
        let neither = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: neither)
        #expect(throws: StrataError.self) { try ManagedObjectModel(contentsOf: neither) }
        let absent = try #require(throws: StrataError.self) {
            try ManagedObjectModel(contentsOf: directory.appendingPathComponent("absent.json"))
        }
        #expect(absent.code == .modelFile && absent.context.path?.hasSuffix("absent.json") == true)
    }

    @Test func unsupportedAttributeTypesNameTheEntityAndAttribute() throws {
        // (`Composite` is supported since issue 19: CompositeAttributeTests.)
        for type in ["ObjectID", "Undefined"] {
            let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Shape" syncable="YES">
                    <attribute name="size" optional="YES" attributeType="\(type)"/>
                </entity>
            </model>
            """
            let error = try #require(throws: StrataError.self) { try Self.load(xml) }
            #expect(error.code == .modelFile)
            #expect(error.context.entity == "Shape")
            #expect(error.context.key == "size")
            #expect(error.context.line == 4)
            #expect(error.message.contains("'\(type)' is not supported"))
        }
    }

    @Test func badValuesInTheXMLNameTheirLocation() throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <model>
            <entity name="Thing">
                <attribute name="count" attributeType="Integer 16" defaultValueString="many"/>
            </entity>
        </model>
        """
        let error = try #require(throws: StrataError.self) { try Self.load(xml) }
        #expect(error.code == .modelFile && error.context.key == "count")
        #expect(error.message.contains("defaultValueString 'many'"))
        let rule = xml.replacingOccurrences(
            of: #"<attribute name="count" attributeType="Integer 16" defaultValueString="many"/>"#,
            with: #"<relationship name="next" destinationEntity="Thing" deletionRule="Explode"/>"#)
        #expect(try #require(throws: StrataError.self) { try Self.load(rule) }.context.xmlAttribute == "deletionRule")
        let wrongRoot = "<?xml version=\"1.0\"?><document/>"
        #expect(try #require(throws: StrataError.self) { try Self.load(wrongRoot) }.message.contains("expected <model>"))
    }

    @Test func malformedXMLIsAModelFileErrorWithALine() throws {
        let xml = "<?xml version=\"1.0\"?>\n<model>\n  <entity name=\"A\">\n  </model>\n"
        let error = try #require(throws: StrataError.self) { try Self.load(xml) }
        #expect(error.code == .modelFile)
        #expect(error.context.line != nil)
        #expect(error.message.contains(":4:") && error.message.contains("XML syntax error"))
        #expect(!error.message.contains("NSXMLParserErrorDomain"))
        #expect(throws: StrataError.self) { try Self.load("") }
        // Found by the mutation test: FoundationXML traps on invalid UTF-8 in an attribute value.
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let file = directory.appendingPathComponent("contents")
        try Data("<model>\n<entity name=\"na".utf8 + [0xC3, 0x65] + "\"/></model>".utf8).write(to: file)
        let utf8 = try #require(throws: StrataError.self) { try ManagedObjectModel(xcdatamodelAt: file) }
        #expect(utf8.code == .modelFile && utf8.context.line == 2 && utf8.context.offset == 24)
        // Found by the fuzzer: FoundationXML dereferences the NULL data of `<?xml?>`.
        for empty in ["<?xml version=\"1.0\"?>\n<model>\n<?xml?>\n</model>", "<model><entity name=\"A\"/>\n\n<?pi?></model>"] {
            let instruction = try #require(throws: StrataError.self) { try Self.load(empty) }
            #expect(instruction.code == .modelFile && instruction.message.contains("processing instruction without data"))
            #expect(instruction.context.line == 3)
        }
        #expect(try Self.load("<?xml version=\"1.0\"?><model><?pi data?><entity name=\"A\"/></model>").entities.count == 1)
        let deep = "<model>" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100) + "</model>"
        #expect(throws: StrataError.self) { try Self.load(deep) }
    }

    @Test func aModelThatParsesButIsInconsistentIsAnInvalidModelError() throws {
        let xml = """
        <model>
            <entity name="A"><relationship name="b" maxCount="1" destinationEntity="Missing"/></entity>
        </model>
        """
        let error = try #require(throws: StrataError.self) { try Self.load(xml) }
        #expect(error.code == .invalidModel)
        #expect(error.problems.map(\.key) == ["b"])
        #expect(error.context.path != nil)
    }

    /// Loads XML text through a temporary contents file.
    static func load(_ xml: String) throws -> ManagedObjectModel {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let file = directory.appendingPathComponent("contents")
        try Data(xml.utf8).write(to: file)
        return try ManagedObjectModel(xcdatamodelAt: file)
    }
}
