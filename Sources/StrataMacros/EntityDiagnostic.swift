import SwiftDiagnostics

/// A misuse of the macros, reported at the declaration that is wrong.
struct EntityDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String
    var severity: DiagnosticSeverity = .error

    var diagnosticID: MessageID { MessageID(domain: "StrataMacros", id: id) }

    static func notAClass(_ kind: String) -> Self {
        .init(message: "@Entity applies to a class that subclasses ManagedObject, not to \(kind)", id: "notAClass")
    }
    static func noSuperclass(_ name: String) -> Self {
        .init(message: "@Entity class '\(name)' must subclass ManagedObject or another @Entity class", id: "noSuperclass")
    }
    static func storedLet(_ name: String) -> Self {
        .init(message: "'let \(name)' cannot be stored by the entity; declare it 'var'", id: "storedLet")
    }
    static func missingType(_ name: String) -> Self {
        .init(message: "property '\(name)' needs an explicit type (for example 'var \(name): String')", id: "missingType")
    }
    static func severalBindings() -> Self {
        .init(message: "declare one property per 'var' in an @Entity class", id: "severalBindings")
    }
    static func observers(_ name: String) -> Self {
        .init(message: "property '\(name)' cannot have willSet or didSet: its value lives in the object's storage (observe it with Observation)", id: "observers")
    }
    static func unsupportedType(_ name: String, _ type: String) -> Self {
        .init(message: "property '\(name)' has type '\(type)', which cannot be stored: use a value type, an enum with raw values, a Codable type, an @Entity class, or a Set or Array of them", id: "unsupportedType")
    }
    static func attributeAndRelationship(_ name: String) -> Self {
        .init(message: "property '\(name)' cannot be both @Attribute and @Relationship", id: "attributeAndRelationship")
    }
    static func inverseNotKeyPath() -> Self {
        .init(message: "inverse must be a key path to the destination's relationship, like \\Department.employees", id: "inverseNotKeyPath")
    }
    static func keyPathsNotLiteral(_ macro: String) -> Self {
        .init(message: "#\(macro) takes an array of key paths to the entity's properties, like [\\.lastName, \\.firstName]", id: "keyPathsNotLiteral")
    }
    static func annotationOutsideEntity(_ name: String) -> Self {
        .init(message: "@\(name) marks a stored 'var' of an @Entity class", id: "annotationOutsideEntity")
    }
    static func derivedTransient(_ name: String) -> Self {
        .init(message: "derived attribute '\(name)' is stored; it cannot be @Transient", id: "derivedTransient")
    }
    static func derivedInitialValue(_ name: String) -> Self {
        .init(message: "derived attribute '\(name)' is computed at save; it takes no initial value", id: "derivedInitialValue")
    }
    static func compositeNotStruct(_ kind: String) -> Self {
        .init(message: "@Composite applies to a struct, not to \(kind)", id: "compositeNotStruct")
    }
    static func compositeLet(_ name: String) -> Self {
        .init(message: "'let \(name)' cannot be an element of the composite; declare it 'var'", id: "compositeLet")
    }
    static func fetchedPropertyArguments() -> Self {
        .init(message: "#FetchedProperty takes a name and a predicate as string literals and the fetched entity's class, like #FetchedProperty(\"highEarners\", entity: Employee.self, predicate: \"salary > 100000\")", id: "fetchedPropertyArguments")
    }
    static func compositeSetting(_ name: String, _ setting: String) -> Self {
        .init(message: "element '\(name)' of a composite cannot be \(setting == "derivation" ? "derived" : setting): a composite is stored as a whole", id: "compositeSetting")
    }
    static func notLiteral(_ argument: String) -> Self {
        .init(message: "'\(argument)' must be a literal", id: "notLiteral")
    }
}
