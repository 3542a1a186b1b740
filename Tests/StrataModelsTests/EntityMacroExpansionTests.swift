import StrataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as the compiler would see them: `@Entity` with its roles, and the
/// annotations it reads.
private let macroSpecs: [String: MacroSpec] = [
    "Entity": MacroSpec(type: EntityMacro.self, conformances: ["ObservableManagedObject"]),
    "EntityProperty": MacroSpec(type: EntityPropertyMacro.self),
    "Attribute": MacroSpec(type: AnnotationMacro.self),
    "Relationship": MacroSpec(type: AnnotationMacro.self),
    "Transient": MacroSpec(type: AnnotationMacro.self),
    "Unique": MacroSpec(type: AnnotationMacro.self),
    "UniquenessConstraint": MacroSpec(type: DeclarationMarkerMacro.self),
    "FetchIndex": MacroSpec(type: DeclarationMarkerMacro.self),
]

private func assertExpansion(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
                             sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macroSpecs,
                         failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}

@Suite("Entity macro expansion")
struct EntityMacroExpansionTests {
    @Test("A root class gets accessors, its declaration, the initializer, the registrar and the conformance")
    func rootClass() {
        assertExpansion(
            """
            @Entity
            final class Department: ManagedObject {
                @Attribute(.unique, minLength: 1) var name: String
                var budget: Decimal? = 1000
                @Relationship(deleteRule: .cascade, inverse: \\Employee.department)
                var employees: Set<Employee>
                var label: String { name }
            }
            """,
            expands: """
            final class Department: ManagedObject {
                var name: String {
                    get {
                        declaredValue(forKey: "name", keyPath: \\.name)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "name", keyPath: \\.name)
                    }
                }
                var budget: Decimal? {
                    init(initialValue) {
                    }
                    get {
                        declaredValue(forKey: "budget", keyPath: \\.budget, initialValue: 1000)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "budget", keyPath: \\.budget)
                    }
                }
                var employees: Set<Employee> {
                    get {
                        declaredValue(forKey: "employees", keyPath: \\.employees)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "employees", keyPath: \\.employees)
                    }
                }
                var label: String { name }

                override class var entityDeclaration: Strata.EntityDeclaration? {
                    Strata.EntityDeclaration(
                        name: "Department", class: Department.self, parent: nil, isAbstract: false,
                        properties: [
                            .attribute("name", \\Department.name, .unique, minLength: 1),
                            .property("budget", \\Department.budget, defaultValue: 1000),
                            .relationship("employees", \\Department.employees, deleteRule: .cascade, inverse: "department"),
                        ]
                    )
                }

                override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    func names<Root: Department>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.name: "name", \\.budget: "budget", \\.employees: "employees"]
                    }
                    return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
                }

                override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Department>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.name: "name", \\.budget: "budget", \\.employees: "employees"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
                }

                override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Department>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                        [\\.?.name: "name", \\.?.budget: "budget", \\.?.employees: "employees"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
                }

                required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }

                let observationRegistrar = Observation.ObservationRegistrar()
            }

            extension Department: Strata.ObservableManagedObject {
            }
            """)
    }

    @Test("A sub-entity's class names its parent and leaves the registrar to it")
    func subclass() {
        assertExpansion(
            """
            @Entity(isAbstract: true)
            class Manager: Employee {
                @Transient var draft: String?
                #UniquenessConstraint<Manager>([\\.firstName, \\.lastName])
                #FetchIndex<Manager>([\\.lastName])
            }
            """,
            expands: """
            class Manager: Employee {
                var draft: String? {
                    get {
                        declaredValue(forKey: "draft", keyPath: \\.draft)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "draft", keyPath: \\.draft)
                    }
                }

                override class var entityDeclaration: Strata.EntityDeclaration? {
                    Strata.EntityDeclaration(
                        name: "Manager", class: Manager.self, parent: Employee.self, isAbstract: true,
                        properties: [
                            .property("draft", \\Manager.draft, isTransient: true),
                        ],
                        uniquenessConstraints: [["firstName", "lastName"]],
                        fetchIndexes: [Strata.FetchIndexDescription("byLastName", elements: [.init("lastName")])]
                    )
                }

                override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    func names<Root: Manager>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.draft: "draft"]
                    }
                    return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
                }

                override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Manager>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.draft: "draft"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
                }

                override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Manager>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                        [\\.?.draft: "draft"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
                }

                required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }
            }
            """)
    }

    @Test("@Entity on a struct is an error naming what it applies to")
    func notAClass() {
        assertExpansion(
            """
            @Entity
            struct Point {
                var x: Double
            }
            """,
            expands: """
            struct Point {
                var x: Double
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Entity applies to a class that subclasses ManagedObject, not to a struct", line: 1, column: 1)])
    }

    @Test("A class without superclass is an error")
    func noSuperclass() {
        assertExpansion(
            """
            @Entity
            final class Loose {
            }
            """,
            expands: """
            final class Loose {
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Entity class 'Loose' must subclass ManagedObject or another @Entity class", line: 2, column: 13)])
    }

    @Test("Properties that cannot be stored are errors at the property")
    func unsupportedProperties() {
        assertExpansion(
            """
            @Entity
            final class Bad: ManagedObject {
                var callback: () -> Void
                var pair: (Int, Int)
                let constant: Int = 1
                var untyped = 3
                var watched: Int = 0 { didSet { print(watched) } }
                @Relationship(inverse: "owner") var things: Set<Thing>
            }
            """,
            expands: """
            final class Bad: ManagedObject {
                var callback: () -> Void
                var pair: (Int, Int)
                let constant: Int = 1
                var untyped = 3
                var watched: Int = 0 { didSet { print(watched) } }
                var things: Set<Thing> {
                    get {
                        declaredValue(forKey: "things", keyPath: \\.things)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "things", keyPath: \\.things)
                    }
                }

                override class var entityDeclaration: Strata.EntityDeclaration? {
                    Strata.EntityDeclaration(
                        name: "Bad", class: Bad.self, parent: nil, isAbstract: false,
                        properties: []
                    )
                }

                override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    func names<Root: Bad>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [:]
                    }
                    return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
                }

                override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Bad>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [:]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
                }

                override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Bad>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                        [:]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
                }

                required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }

                let observationRegistrar = Observation.ObservationRegistrar()
            }

            extension Bad: Strata.ObservableManagedObject {
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "property 'callback' has type '() -> Void', which cannot be stored: use a value type, an enum with raw values, a Codable type, an @Entity class, or a Set or Array of them", line: 3, column: 19),
                DiagnosticSpec(message: "property 'pair' has type '(Int, Int)', which cannot be stored: use a value type, an enum with raw values, a Codable type, an @Entity class, or a Set or Array of them", line: 4, column: 15),
                DiagnosticSpec(message: "'let constant' cannot be stored by the entity; declare it 'var'", line: 5, column: 5),
                DiagnosticSpec(message: "property 'untyped' needs an explicit type (for example 'var untyped: String')", line: 6, column: 9),
                DiagnosticSpec(message: "property 'watched' cannot have willSet or didSet: its value lives in the object's storage (observe it with Observation)", line: 7, column: 9),
                DiagnosticSpec(message: "inverse must be a key path to the destination's relationship, like \\Department.employees", line: 8, column: 28),
            ])
    }
}
