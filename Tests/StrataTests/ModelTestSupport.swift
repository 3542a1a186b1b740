import Foundation
import Testing
@testable import Strata

/// Fixtures and sample models shared by the model tests.
enum ModelFixtures {
    /// The six Xcode model files copied from public repositories and the two written for
    /// Strata in shapes Xcode writes (see the README beside them).
    static let xcodeFixtureNames = [
        "CoreDataPlus__SampleModel", "CoreDataPlus__SampleModel3", "CoreStore__Model",
        "FreeCoreData__EmployeeDirectory", "MagicalRecord__TestModel", "mogenerator__test",
        "Strata__DerivedDoubleNow", "Strata__EmptyNestedComposite",
    ]

    /// The URL of a fixture XML file in the test bundle.
    static func xcodeFixtureURL(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "xml", subdirectory: "Fixtures/xcdatamodels"))
    }

    /// Loads a fixture with the Xcode importer.
    static func xcodeModel(_ name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(xcdatamodelAt: xcodeFixtureURL(name))
    }

    static func date(_ text: String) -> Date {
        guard let date = ModelDateText.date(from: text) else { fatalError("bad test date \(text)") }
        return date
    }

    /// The Employee/Department model of docs/MODEL-FORMAT.md, using every field of the format.
    static func employeeDeclarations() -> (entities: [EntityDescription], configurations: [String: [String]],
                                           templates: [FetchRequestTemplate]) {
        let person = EntityDescription(
            "Person", isAbstract: true,
            attributes: [
                AttributeDescription("firstName", .string, isOptional: false, minLength: 1, maxLength: 64),
                AttributeDescription("lastName", .string, isOptional: false, defaultValue: "Doe", isIndexed: true),
                AttributeDescription("email", .string, regularExpression: "[^@ ]+@[^@ ]+",
                                     userInfo: ["display": "E-mail \"work\""]),
                AttributeDescription("birthDate", .date, minValue: .date(date("1900-01-01T00:00:00Z"))),
                AttributeDescription("badge", .uuid, defaultValue: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
            ],
            userInfo: ["table": "people"], representedClassName: "PersonMO")
        let employee = EntityDescription(
            "Employee", parent: "Person",
            attributes: [
                AttributeDescription("salary", .integer64, isOptional: false, defaultValue: 50_000,
                                     minValue: 0, maxValue: 10_000_000, isIndexed: true),
                AttributeDescription("level", .integer16, defaultValue: 1, minValue: 1, maxValue: 9),
                AttributeDescription("rate", .decimal, defaultValue: .decimal(Decimal(string: "12.50")!)),
                AttributeDescription("ratio", .double, defaultValue: 0.1, maxValue: .double(1)),
                AttributeDescription("score", .float, defaultValue: .double(Double(Float(0.3)))),
                AttributeDescription("isManager", .boolean, isOptional: false, defaultValue: false),
                AttributeDescription("startDate", .date, defaultValue: .date(date("2020-01-01T09:30:00.25Z"))),
                AttributeDescription("photo", .binaryData, defaultValue: .data(Data([0, 1, 2, 250])), maxLength: 1_000_000),
                AttributeDescription("homepage", .uri, defaultValue: .uri(URL(string: "https://example.com/~me")!)),
                AttributeDescription("preferences", .transformable, valueTransformerName: "JSONTransformer"),
                AttributeDescription("nickname", .string, isTransient: true, defaultValue: "new hire"),
            ],
            relationships: [
                RelationshipDescription("department", to: "Department", inverse: "employees", deleteRule: .nullify,
                                        isOptional: false, userInfo: ["note": "home department"]),
                RelationshipDescription("manager", to: "Employee", inverse: "reports"),
                RelationshipDescription("reports", to: "Employee", toMany: true, inverse: "manager",
                                        deleteRule: .deny, isOrdered: true, maxCount: 12),
                RelationshipDescription("scratch", to: "Department", isTransient: true),
            ],
            renamingIdentifier: "Worker")
        let department = EntityDescription(
            "Department",
            attributes: [
                AttributeDescription("name", .string, isOptional: false),
                AttributeDescription("budget", .decimal, minValue: .decimal(0)),
            ],
            relationships: [
                RelationshipDescription("employees", to: "Employee", toMany: true, inverse: "department",
                                        deleteRule: .cascade, minCount: 1, maxCount: 500),
            ],
            fetchedProperties: [
                FetchedPropertyDescription("highEarners", entity: "Employee",
                                           predicate: "department == $FETCH_SOURCE AND salary > 100000",
                                           userInfo: ["cache": "no"]),
            ],
            uniquenessConstraints: [["name"]], representedClassName: "DepartmentMO")
        let templates = [
            FetchRequestTemplate(name: "employeesNamed", entity: "Employee", predicate: "lastName == $LAST_NAME"),
            FetchRequestTemplate(name: "departmentsOverBudget", entity: "Department", predicate: "budget > $LIMIT"),
        ]
        return ([person, employee, department], ["Main": ["Person", "Employee", "Department"], "Lookup": ["Department"]],
                templates)
    }

    /// The Employee/Department model, built.
    static func employeeModel() throws -> ManagedObjectModel {
        let declarations = employeeDeclarations()
        return try ManagedObjectModel(
            entities: declarations.entities, configurations: declarations.configurations,
            fetchRequestTemplates: declarations.templates, versionIdentifier: "2.1")
    }

    /// The problems of a model that must fail, or an empty list when it builds.
    static func problems(_ entities: [EntityDescription], templates: [FetchRequestTemplate] = []) -> [StrataError.Problem] {
        do {
            _ = try ManagedObjectModel(entities: entities, fetchRequestTemplates: templates)
            return []
        } catch let error as StrataError {
            #expect(error.code == .invalidModel)
            return error.problems
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    /// The `.modelFile` error a JSON text produces.
    static func jsonError(_ text: String) -> StrataError? {
        do {
            _ = try ManagedObjectModel(jsonData: Data(text.utf8))
            return nil
        } catch let error as StrataError {
            return error
        } catch {
            return nil
        }
    }
}
