import Foundation

extension AttributeDescription {
    /// A derived attribute (Core Data's `NSDerivedAttributeDescription`): a stored attribute
    /// whose value the context computes from `derivation` whenever it saves the object or
    /// an object the derivation reads. The app reads it like any attribute and cannot set it.
    ///
    /// ```swift
    /// try AttributeDescription.derived("departmentName", .string, "department.name")
    /// try AttributeDescription.derived("headcount", .integer64, "employees.@count")
    /// try AttributeDescription.derived("payroll", .integer64, "employees.@sum.salary")
    /// try AttributeDescription.derived("searchName", .string, "canonical:(name)")
    /// try AttributeDescription.derived("modified", .date, "now()")
    /// ```
    /// - Parameters:
    ///   - name: the attribute's name.
    ///   - type: the stored type; the derivation's value must fit it (checked with the model).
    ///   - derivation: the expression, in the format language of docs/PREDICATES.md.
    /// - Throws: `StrataError(.predicateSyntax)` when `derivation` does not parse.
    public static func derived(_ name: String, _ type: AttributeType, _ derivation: String) throws -> AttributeDescription {
        AttributeDescription(name, type, derivation: try FetchExpression(format: derivation))
    }

    /// Whether the attribute is derived (has a ``derivation``).
    public var isDerived: Bool { derivation != nil }

    /// A model file's derivation text (Xcode's `derivationExpression`) as an expression.
    /// - Throws: `ModelFileReason` with the parser's message when it is missing or does not parse.
    static func parsedDerivation(_ text: String?) throws -> FetchExpression {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ModelFileReason("a derived attribute needs a derivationExpression")
        }
        do {
            return try FetchExpression(format: text)
        } catch let error as StrataError {
            throw ModelFileReason("derivation '\(text)' does not parse: \(error.message)")
        }
    }

    /// The JSON model's `derivation` field (absent: not derived).
    static func parsedDerivation(_ text: String?, at location: ModelJSONLocation) throws -> FetchExpression? {
        guard let text else { return nil }
        do {
            return try parsedDerivation(text)
        } catch let reason as ModelFileReason {
            throw location.error(field: "derivation", reason.text)
        }
    }
}

/// What the model knows about its derived attributes, resolved once when it is built: which
/// slots of each entity are derived, and along which relationships a change to an object
/// reaches objects whose derivations read it.
struct DerivationPlan: Sendable {
    /// Per entity index: the derived attributes (own and inherited) as (slot, expression).
    var derived: [[(slot: Int, expression: FetchExpression)]] = []
    /// Per entity index: chains of relationship names that lead from a changed object of
    /// that entity to the objects whose derived values read it (each an inverse path).
    var dependents: [[[String]]] = []

    /// Whether the model has no derived attribute at all (saves skip the work).
    var isEmpty: Bool { derived.allSatisfy(\.isEmpty) }

    static let empty = DerivationPlan()

    init() {}

    /// Resolves a built model's derivations (they were validated first).
    init(_ model: ManagedObjectModel) {
        derived = model.entities.map { entity in
            entity.attributes.compactMap { attribute in attribute.derivation.map { (attribute.slot, $0) } }
        }
        for (entity, slots) in zip(model.entities, derived) { entity.hasDerivedAttributes = !slots.isEmpty }
        var chains = Array(repeating: Set<[String]>(), count: model.entities.count)
        for entity in model.entities {
            for attribute in entity.attributes {
                guard let derivation = attribute.derivation else { continue }
                for path in DerivationCheck.keyPaths(in: derivation) {
                    // Walk the relationships of the path; at each step, a change to an object
                    // of the step's destination reaches `entity` back through the inverses.
                    var current = entity
                    var inverses: [String] = []
                    for key in path {
                        guard let relationship = current.relationshipsByName[key] else { break }
                        let destination = current.destination(of: relationship)
                        guard let inverse = relationship.inverseName else { break }
                        inverses.insert(inverse, at: 0)
                        for reached in destination.selfAndDescendants { chains[reached.index].insert(inverses) }
                        current = destination
                    }
                }
            }
        }
        dependents = chains.map { $0.sorted { $0.lexicographicallyPrecedes($1) } }
    }
}

/// Checks derivations when a model is built: each names only keys its entity reaches, is
/// not a variable or subquery, and gives a value its attribute's type can hold.
enum DerivationCheck {
    /// The problems of every derivation in the model, each naming entity, attribute and
    /// expression.
    static func problems(in model: ManagedObjectModel) -> [StrataError.Problem] {
        var problems: [StrataError.Problem] = []
        for entity in model.entities {
            for attribute in entity.declaredAttributes {
                guard let derivation = attribute.derivation else { continue }
                func problem(_ reason: String) {
                    problems.append(.init(entityName: entity.name, object: nil, key: attribute.name,
                                          reason: "derivation '\(derivation.predicateFormat)': \(reason)"))
                }
                if attribute.isTransient { problem("a derived attribute is stored; it cannot be transient") }
                do {
                    let type = try resultType(of: derivation, in: entity)
                    if let type, !fits(type, attribute.attributeType) {
                        problem("gives \(article(type.rawValue)) value, which \(article(attribute.attributeType.rawValue)) attribute cannot hold")
                    }
                } catch let reason as ModelFileReason {
                    problem(reason.text)
                } catch {
                    problem("\(error)")
                }
            }
        }
        return problems
    }

    /// The value `expression` gives `subject` (with `now()` fixed to `now`), coerced to
    /// `attribute`'s type; or nil, with the problem (naming entity, object, attribute and
    /// derivation) added to `problems`.
    /// One place for a context's save and a store's batch, so both refuse alike.
    static func derivedValue(of expression: FetchExpression, for attribute: AttributeDescription,
                             entityName: String, objectID: ManagedObjectID, subject: any PredicateSubject,
                             now: Date, problems: inout [StrataError.Problem]) -> PropertyValue? {
        func problem(_ reason: String) -> PropertyValue? {
            problems.append(.init(entityName: entityName, object: objectID.description, key: attribute.name,
                                  reason: "derivation '\(expression.predicateFormat)': \(reason)"))
            return nil
        }
        let value: PropertyValue
        do {
            value = try expression.replacingNow(with: now).value(with: subject)
        } catch let error as StrataError {
            return problem(error.message)
        } catch {
            return problem("\(error)")
        }
        // A date kept in a Double or Float attribute is seconds since 2001-01-01 00:00 UTC,
        // as Core Data stores a date (docs/MODEL-FORMAT.md, "Derived attributes").
        if case .date(let date) = value, attribute.attributeType.valueKind == .double {
            return .double(date.timeIntervalSinceReferenceDate)
        }
        guard let coerced = ModelValueRules.coerce(value, to: attribute.attributeType) else {
            return problem("gives \(ModelValueRules.kindName(value)) \(value), which \(article(attribute.attributeType.rawValue)) attribute cannot hold")
        }
        return coerced
    }

    /// A type name with its indefinite article: "an integer64", "a string".
    static func article(_ name: String) -> String {
        ("aeiou".contains(name.prefix(1).lowercased()) ? "an " : "a ") + name
    }

    /// Whether a value of type `value` may be stored in an attribute of type `target`. A
    /// date fits a Double or Float attribute as seconds since 2001 (Core Data's encoding).
    static func fits(_ value: AttributeType, _ target: AttributeType) -> Bool {
        if value == target { return true }
        if value == .date { return target.valueKind == .double }
        if value.isInteger { return target.isNumeric }
        if value.isNumeric { return target.isNumeric && !target.isInteger }
        return false
    }

    /// The relationship-and-attribute key paths an expression reads from the evaluated
    /// object (collection operators' key paths joined to their collections').
    static func keyPaths(in expression: FetchExpression) -> [[String]] {
        switch expression {
        case .keyPath(let path, .evaluatedObject):
            return [path.split(separator: ".").map(String.init)]
        case .keyPath(_, let base): return keyPaths(in: base)
        case .collectionOperator(_, let collection, let key):
            let inner = keyPaths(in: collection)
            guard let key else { return inner }
            return inner.map { $0 + key.split(separator: ".").map(String.init) }
        case .function(_, let arguments): return arguments.flatMap(keyPaths(in:))
        case .collection(let elements): return elements.flatMap(keyPaths(in:))
        case .conditional(_, let then, let otherwise): return keyPaths(in: then) + keyPaths(in: otherwise)
        case .index(let base, _): return keyPaths(in: base)
        case .constant, .variable, .evaluatedObject, .subquery: return []
        }
    }

    /// The type of the expression's value where it is known (nil: checked per value at save).
    /// - Throws: `ModelFileReason` naming an unknown key, a to-many without an aggregate,
    ///   a variable or a subquery.
    static func resultType(of expression: FetchExpression, in entity: EntityDescription) throws -> AttributeType? {
        switch expression {
        case .constant(let value):
            return value.literalAttributeType
        case .keyPath(let path, .evaluatedObject):
            let (type, toMany) = try follow(path.split(separator: ".").map(String.init), from: entity)
            if toMany {
                throw ModelFileReason("'\(path)' runs through a to-many relationship and gives many values; aggregate them (\(path.split(separator: ".")[0]).@count, @sum.key, @avg, @min, @max)")
            }
            guard let type else { throw ModelFileReason("'\(path)' ends at a relationship; name an attribute") }
            return type
        case .collectionOperator(let op, .keyPath(let path, .evaluatedObject), let key):
            let keys = path.split(separator: ".").map(String.init)
            let (_, toMany) = try follow(keys, from: entity)
            guard toMany else { throw ModelFileReason("\(op.rawValue) needs a to-many relationship; '\(path)' is not one") }
            if op == .count { return .integer64 }
            guard let key else { throw ModelFileReason("\(op.rawValue) needs a key after it: \(path).\(op.rawValue).key") }
            let (type, _) = try follow(keys + key.split(separator: ".").map(String.init), from: entity)
            guard let type else { throw ModelFileReason("'\(path).\(op.rawValue).\(key)' ends at a relationship; name an attribute") }
            if op == .avg { return .double }
            if op == .sum, !type.isNumeric { throw ModelFileReason("@sum needs numbers; '\(key)' is \(type.rawValue)") }
            return type.isInteger ? .integer64 : type
        case .collectionOperator:
            throw ModelFileReason("a collection operator in a derivation applies to a key path of the object")
        case .variable(let name):
            throw ModelFileReason("$\(name): a derivation has no variables")
        case .subquery:
            throw ModelFileReason("SUBQUERY is not supported in a derivation")
        case .evaluatedObject, .keyPath:
            throw ModelFileReason("a derivation's value must be an attribute value, not an object")
        case .function(let function, let arguments):
            let types = try arguments.map { try resultType(of: $0, in: entity) }
            switch function {
            case .canonical, .uppercase, .lowercase:
                if let type = types.first ?? nil, type != .string {
                    throw ModelFileReason("\(function.rawValue) needs a string, not \(article(type.rawValue))")
                }
                return .string
            case .length, .count: return .integer64
            case .now: return .date
            case .average, .squareRoot, .log, .naturalLogarithm, .exponential, .random, .standardDeviation: return .double
            default: return nil
            }
        case .collection, .conditional, .index:
            for path in keyPaths(in: expression) { _ = try follow(path, from: entity) }
            return nil
        }
    }

    /// The type at the end of a key path (nil at a relationship) and whether it ran
    /// through a to-many.
    private static func follow(_ keys: [String], from entity: EntityDescription) throws -> (AttributeType?, Bool) {
        var current = entity
        var toMany = false
        for (index, key) in keys.enumerated() {
            if let attribute = current.attributesByName[key] {
                if index != keys.count - 1 {
                    throw ModelFileReason("'\(key)' is an attribute of \(current.name); it has no key '\(keys[index + 1])'")
                }
                if attribute.isDerived {
                    throw ModelFileReason("'\(key)' of \(current.name) is itself derived; derive from stored attributes")
                }
                return (attribute.attributeType, toMany)
            }
            guard let relationship = current.relationshipsByName[key] else {
                throw ModelFileReason("\(current.name) has no attribute or relationship '\(key)'")
            }
            if relationship.inverseName == nil {
                throw ModelFileReason("the relationship \(current.name).\(key) needs an inverse, so that saves know whose value to recompute")
            }
            toMany = toMany || relationship.isToMany
            current = current.destination(of: relationship)
        }
        return (nil, toMany)
    }
}
