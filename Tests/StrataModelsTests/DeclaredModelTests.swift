import Foundation
import StrataModels
import Testing

@Suite("Declared models")
struct DeclaredModelTests {
    @Test("Classes declared with @Entity give the same model as the equivalent JSON")
    func sameModelAsJSON() throws {
        let declared = try staffModel()
        let json = try ManagedObjectModel(jsonData: Data(staffJSON.utf8))
        #expect(declared.versionHash == json.versionHash)
        #expect(declared.entities.map(\.name) == ["Person", "Employee", "Department"])
        for entity in json.entities {
            let twin = try declared.entity(named: entity.name)
            #expect(twin.parentName == entity.parentName)
            #expect(twin.isAbstract == entity.isAbstract)
            #expect(twin.declaredAttributes.map(\.name) == entity.declaredAttributes.map(\.name))
            for (mine, theirs) in zip(twin.declaredAttributes, entity.declaredAttributes) {
                #expect(mine.attributeType == theirs.attributeType, "\(entity.name).\(mine.name)")
                #expect(mine.isOptional == theirs.isOptional, "\(entity.name).\(mine.name)")
                #expect(mine.isTransient == theirs.isTransient, "\(entity.name).\(mine.name)")
                #expect(mine.defaultValue == theirs.defaultValue, "\(entity.name).\(mine.name)")
                #expect(mine.isIndexed == theirs.isIndexed, "\(entity.name).\(mine.name)")
                #expect(mine.minLength == theirs.minLength, "\(entity.name).\(mine.name)")
            }
            #expect(twin.declaredRelationships == entity.declaredRelationships)
            #expect(Set(twin.uniquenessConstraints) == Set(entity.uniquenessConstraints))
            #expect(twin.fetchIndexes == entity.fetchIndexes)
        }
    }

    @Test("Every attribute type follows from its Swift type, optional or not")
    func attributeTypes() throws {
        let employee = try staffModel().entity(named: "Employee")
        let types = Dictionary(uniqueKeysWithValues: employee.attributes.map { ($0.name, ($0.attributeType, $0.isOptional)) })
        #expect(types["salary"]! == (.integer64, true))
        #expect(types["employeeID"]! == (.integer32, false))
        #expect(types["level"]! == (.integer16, true))
        #expect(types["rating"]! == (.double, true))
        #expect(types["ratio"]! == (.float, true))
        #expect(types["bonus"]! == (.decimal, true))
        #expect(types["active"]! == (.boolean, false))
        #expect(types["startDate"]! == (.date, true))
        #expect(types["photo"]! == (.binaryData, true))
        #expect(types["badge"]! == (.uuid, true))
        #expect(types["homepage"]! == (.uri, true))
        #expect(types["grade"]! == (.string, false))
        #expect(types["address"]! == (.transformable, true))
        #expect(types["firstName"]! == (.string, false))
        #expect(types["nickname"]! == (.string, true))
        #expect(employee.attributesByName["nickname"]?.isTransient == true)
        #expect(employee.attributesByName["grade"]?.defaultValue == .string("junior"))
        #expect(employee.attributesByName["active"]?.defaultValue == .boolean(true))
    }

    @Test("Relationships: to-one, to-many as Set, ordered as Array, inverses completed, delete rules")
    func relationships() throws {
        let model = try staffModel()
        let employee = try model.entity(named: "Employee")
        let department = try model.entity(named: "Department")
        let reports = try #require(employee.relationshipsByName["reports"])
        #expect(reports.isToMany && reports.isOrdered && reports.inverseName == "manager")
        // The inverse named on one side only is named on the other.
        #expect(employee.relationshipsByName["manager"]?.inverseName == "reports")
        #expect(employee.relationshipsByName["department"]?.inverseName == "employees")
        let employees = try #require(department.relationshipsByName["employees"])
        #expect(employees.isToMany && !employees.isOrdered && employees.deleteRule == .cascade)
        #expect(model.objectClass(forEntity: employee) == Employee.self)
        #expect(model.objectClass(forEntity: department) == Department.self)
    }

    @Test("Parents and destinations join the model when not listed")
    func reachableClasses() throws {
        let model = try ManagedObjectModel(types: [Department.self])
        #expect(model.entities.map(\.name) == ["Department", "Employee", "Person"])
    }

    @Test("Objects read and write their declared properties through the store's values")
    func readAndWrite() throws {
        let model = try staffModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        let research = try #require(try context.insertObject(forEntityName: "Department") as? Department)
        research.name = "Research"
        let ada = try #require(try context.insertObject(forEntityName: "Employee") as? Employee)
        #expect(ada.salary == 50_000 && ada.active && ada.grade == .junior && ada.address == nil)
        ada.firstName = "Ada"
        ada.lastName = "Lovelace"
        ada.grade = .senior
        ada.address = Address(street: "12 St James's Square", city: "London")
        ada.department = research
        ada.bonus = Decimal(string: "12.5")
        ada.ratio = 0.25
        #expect(research.employees == [ada])
        #expect(try ada.value(forKey: "grade") == .string("senior"))
        #expect(ada.fullName == "Ada Lovelace")
        let grace = try #require(try context.insertObject(forEntityName: "Employee") as? Employee)
        grace.firstName = "Grace"
        grace.lastName = "Hopper"
        grace.manager = ada
        #expect(ada.reports == [grace])
        try context.save()
        ada.salary = nil
        #expect(try ada.value(forKey: "salary") == .null)
        try context.undoManager?.undo()
        #expect(ada.salary == 50_000)
        #expect(ada.address?.city == "London")
    }

    @Test("An abstract entity's objects cannot be inserted; a sub-entity's can")
    func abstractEntity() throws {
        let model = try staffModel()
        #expect(try model.entity(named: "Person").isAbstract)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model))
        let context = ManagedObjectContext(coordinator: coordinator)
        #expect(throws: StrataError.self) { try context.insertObject(forEntityName: "Person") }
    }

    @Test("A property Strata cannot store is an error naming the entity, the property and the type")
    func unstorableType() throws {
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(types: [Unstorable.self]) }
        #expect(error.code == .invalidModel)
        let problem = try #require(error.problems.first)
        #expect(problem.entityName == "Unstorable" && problem.key == "location")
        #expect(problem.reason.contains("Location"))
    }

    @Test("A class without @Entity, and @Attribute on a relationship, are errors")
    func misusedClasses() throws {
        let plain = try #require(throws: StrataError.self) { try ManagedObjectModel(types: [PlainObject.self]) }
        #expect(plain.problems.first?.reason.contains("not declared with @Entity") == true)
        let wrong = try #require(throws: StrataError.self) { try ManagedObjectModel(types: [AttributeOnRelationship.self]) }
        #expect(wrong.problems.contains { $0.key == "owner" && $0.reason.contains("@Attribute on a relationship") })
    }

    @Test("The model's own validation applies: a wrong inverse name is reported")
    func modelValidation() throws {
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(types: [WrongInverse.self]) }
        #expect(error.problems.contains { $0.key == "partner" && $0.reason.contains("inverse") })
    }

    @Test("A relationship whose inverse neither side names is an error unless it asks for none")
    func missingInverse() throws {
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(types: [Loner.self]) }
        #expect(error.problems.contains { $0.entityName == "Loner" && $0.key == "friend" && $0.reason.contains("names no inverse") })
        let model = try ManagedObjectModel(types: [Solo.self])
        #expect(try model.entity(named: "Solo").relationshipsByName["friend"]?.inverseName == nil)
    }

    @Test("The key path table names each declared property, inherited ones from a sub-entity's class too")
    func keyPathNames() throws {
        #expect(Employee.propertyName(for: \Employee.salary) == "salary")
        #expect(Employee.propertyName(for: \Employee.reports) == "reports")
        #expect(Employee.propertyName(for: \Employee.lastName) == "lastName")
        #expect(Person.propertyName(for: \Person.lastName) == "lastName")
        #expect(Employee.propertyName(for: \Employee.fullName) == nil)
    }
}

/// Not Codable, not an enum: nothing Strata can store.
struct Location: Sendable {
    var latitude: Double
}

@Entity final class Unstorable: ManagedObject {
    var location: Location?
}

final class PlainObject: ManagedObject {}

@Entity final class AttributeOnRelationship: ManagedObject {
    @Attribute var owner: Unstorable2?
}

@Entity final class Unstorable2: ManagedObject {
    var name: String?
}

@Entity final class WrongInverse: ManagedObject {
    @Relationship(inverse: \WrongInverse.name) var partner: WrongInverse?
    var name: String?
}

@Entity final class Loner: ManagedObject {
    var friend: Loner?
}

@Entity final class Solo: ManagedObject {
    @Relationship(inverse: nil) var friend: Solo?
}
