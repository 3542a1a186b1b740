import StrataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as the compiler would see them, `@Composite` included.
private let macroSpecs: [String: MacroSpec] = [
    "Entity": MacroSpec(type: EntityMacro.self, conformances: ["ObservableManagedObject"]),
    "EntityProperty": MacroSpec(type: EntityPropertyMacro.self),
    "Attribute": MacroSpec(type: AnnotationMacro.self),
    "Relationship": MacroSpec(type: AnnotationMacro.self),
    "Transient": MacroSpec(type: AnnotationMacro.self),
    "Composite": MacroSpec(type: CompositeMacro.self, conformances: ["CompositeValue"]),
    "FetchedProperty": MacroSpec(type: FetchedPropertyMacro.self),
]

private func assertExpansion(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
                             sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macroSpecs,
                         failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}

@Suite("Derived and composite macro expansion")
struct DerivedCompositeExpansionTests {
    @Test("@Attribute(derivation:) passes the expression to the declaration")
    func derived() {
        assertExpansion(
            """
            @Entity
            final class Branch: ManagedObject {
                @Attribute(derivation: "staff.@count") var headcount: Int64
            }
            """,
            expands: """
            final class Branch: ManagedObject {
                var headcount: Int64 {
                    get {
                        declaredValue(forKey: "headcount", keyPath: \\.headcount)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "headcount", keyPath: \\.headcount)
                    }
                }

                override class var entityDeclaration: Strata.EntityDeclaration? {
                    Strata.EntityDeclaration(
                        name: "Branch", class: Branch.self, parent: nil, isAbstract: false,
                        properties: [
                            .attribute("headcount", \\Branch.headcount, derivation: "staff.@count"),
                        ]
                    )
                }

                override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    func names<Root: Branch>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.headcount: "headcount"]
                    }
                    return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
                }

                override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Branch>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [\\.headcount: "headcount"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
                }

                override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Branch>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                        [\\.?.headcount: "headcount"]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
                }

                required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }

                let observationRegistrar = Observation.ObservationRegistrar()
            }

            extension Branch: Strata.ObservableManagedObject {
            }
            """)
    }

    @Test("A derivation that is not a plain string literal, is transient or has an initial value is an error")
    func derivedMisuse() {
        assertExpansion(
            """
            @Entity
            final class Bad: ManagedObject {
                @Attribute(derivation: path) var a: String?
                @Attribute(derivation: "\\(path).name") var b: String?
                @Transient @Attribute(derivation: "name") var c: String?
                @Attribute(derivation: "name") var d: String? = "x"
            }
            """,
            expands: """
            final class Bad: ManagedObject {
                var a: String? {
                    get {
                        declaredValue(forKey: "a", keyPath: \\.a)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "a", keyPath: \\.a)
                    }
                }
                var b: String? {
                    get {
                        declaredValue(forKey: "b", keyPath: \\.b)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "b", keyPath: \\.b)
                    }
                }
                
                var c: String? {
                    get {
                        declaredValue(forKey: "c", keyPath: \\.c)
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "c", keyPath: \\.c)
                    }
                }
                var d: String? {
                    init(initialValue) {
                    }
                    get {
                        declaredValue(forKey: "d", keyPath: \\.d, initialValue: "x")
                    }
                    set {
                        setDeclaredValue(newValue, forKey: "d", keyPath: \\.d)
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
                DiagnosticSpec(message: "'derivation' must be a literal", line: 3, column: 28),
                DiagnosticSpec(message: "'derivation' must be a literal", line: 4, column: 28),
                DiagnosticSpec(message: "derived attribute 'c' is stored; it cannot be @Transient", line: 5, column: 16),
                DiagnosticSpec(message: "derived attribute 'd' is computed at save; it takes no initial value", line: 6, column: 5),
            ])
    }

    @Test("@Composite declares the struct's stored vars as elements, with conversions both ways")
    func composite() {
        assertExpansion(
            """
            @Composite
            struct Address {
                var city: String
                var zip: String? = "0150"
                var geo: Geo?
                var label: String { city }
                static var shared = 1
            }
            """,
            expands: """
            struct Address {
                var city: String
                var zip: String? = "0150"
                var geo: Geo?
                var label: String { city }
                static var shared = 1
            }

            extension Address: Strata.CompositeValue {
                static var compositeDeclaration: Strata.CompositeDeclaration {
                    Strata.CompositeDeclaration(typeName: "Address", elements: [
                        .element("city", \\Address.city),
                        .element("zip", \\Address.zip, defaultValue: "0150"),
                        .element("geo", \\Address.geo),
                    ])
                }
                init(compositeElements elements: Strata.CompositeElements) throws {
                    self.city = try elements.value(forKey: "city")
                    self.zip = try elements.value(forKey: "zip")
                    self.geo = try elements.value(forKey: "geo")
                }
                var compositeElements: Strata.CompositeElements {
                    var elements = Strata.CompositeElements()
                    elements.setValue(self.city, forKey: "city")
                    elements.setValue(self.zip, forKey: "zip")
                    elements.setValue(self.geo, forKey: "geo")
                    return elements
                }
            }
            """)
    }

    @Test("An element's @Attribute settings join its declaration; derived or transient elements are errors")
    func compositeElementSettings() {
        assertExpansion(
            """
            @Composite
            struct Address {
                @Attribute(minLength: 4, regularExpression: "[0-9]*") var zip: String?
                @Attribute(derivation: "city") var label: String?
                @Transient var note: String?
            }
            """,
            expands: """
            struct Address {
                var zip: String?
                var label: String?
                var note: String?
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "element 'label' of a composite cannot be derived: a composite is stored as a whole", line: 4, column: 16),
                DiagnosticSpec(message: "element 'note' of a composite cannot be @Transient: a composite is stored as a whole", line: 5, column: 5),
            ])
        assertExpansion(
            """
            @Composite
            struct Address {
                @Attribute(minLength: 4, regularExpression: "[0-9]*") var zip: String?
            }
            """,
            expands: """
            struct Address {
                var zip: String?
            }

            extension Address: Strata.CompositeValue {
                static var compositeDeclaration: Strata.CompositeDeclaration {
                    Strata.CompositeDeclaration(typeName: "Address", elements: [
                        .element("zip", \\Address.zip, minLength: 4, regularExpression: "[0-9]*"),
                    ])
                }
                init(compositeElements elements: Strata.CompositeElements) throws {
                    self.zip = try elements.value(forKey: "zip")
                }
                var compositeElements: Strata.CompositeElements {
                    var elements = Strata.CompositeElements()
                    elements.setValue(self.zip, forKey: "zip")
                    return elements
                }
            }
            """)
    }

    @Test("@Composite on a class, and a let element, are errors")
    func compositeMisuse() {
        assertExpansion(
            """
            @Composite
            final class Address {
                var city: String = ""
            }
            @Composite
            struct Geo {
                let lat: Double
                var lon: Double
            }
            """,
            expands: """
            final class Address {
                var city: String = ""
            }
            struct Geo {
                let lat: Double
                var lon: Double
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Composite applies to a struct, not to a class", line: 1, column: 1),
                DiagnosticSpec(message: "'let lat' cannot be an element of the composite; declare it 'var'", line: 7, column: 5),
            ])
    }

    @Test("#FetchedProperty joins the entity's declaration and declares a typed accessor")
    func fetchedProperty() {
        assertExpansion(
            """
            @Entity
            public final class Team: ManagedObject {
                #FetchedProperty("veterans", entity: Player.self, predicate: "team == $FETCH_SOURCE AND age > 30")
            }
            """,
            expands: """
            public final class Team: ManagedObject {
                public var veterans: [Player] {
                    get throws {
                        try fetchedProperty("veterans", as: Player.self)
                    }
                }

                public override class var entityDeclaration: Strata.EntityDeclaration? {
                    Strata.EntityDeclaration(
                        name: "Team", class: Team.self, parent: nil, isAbstract: false,
                        properties: [],
                        fetchedProperties: [Strata.FetchedPropertyDeclaration("veterans", entity: Player.self, predicate: "team == $FETCH_SOURCE AND age > 30")]
                    )
                }

                public override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    func names<Root: Team>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [:]
                    }
                    return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
                }

                public override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Team>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                        [:]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
                }

                public override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                    func names<Root: Team>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                        [:]
                    }
                    return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
                }

                public required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }

                public let observationRegistrar = Observation.ObservationRegistrar()
            }

            extension Team: Strata.ObservableManagedObject {
            }
            """)
    }

    @Test("#FetchedProperty with arguments that are not literals is an error")
    func fetchedPropertyMisuse() {
        assertExpansion(
            """
            #FetchedProperty(name, entity: Player.self, predicate: "age > 30")
            """,
            expands: """
            """,
            diagnostics: [
                DiagnosticSpec(message: "#FetchedProperty takes a name and a predicate as string literals and the fetched entity's class, like #FetchedProperty(\"highEarners\", entity: Employee.self, predicate: \"salary > 100000\")", line: 1, column: 1),
            ])
    }
}
