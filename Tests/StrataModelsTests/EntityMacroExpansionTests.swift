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
                        declaredValue(forKey: "budget", keyPath: \\.budget)
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
            """,
            diagnostics: [])
    }
}
