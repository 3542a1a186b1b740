/// An expression, Core Data's `NSExpression`: one side of a comparison, a fetched
/// property's value or a batch update's new value. A constant, a key path, a variable,
/// `SELF`, a literal collection, a collection operator, a subquery, a function (arithmetic
/// included), `TERNARY` or a subscript.
///
/// ```swift
/// FetchExpression.keyPath("department.name")                       // department.name
/// FetchExpression.collectionOperator(.sum, of: .keyPath("employees"), key: "salary")
///                                                                    // employees.@sum.salary
/// FetchExpression.keyPath("salary", on: .variable("e"))              // $e.salary
/// FetchExpression.function(.multiply, [.keyPath("salary"), .constant(1.1)])   // salary * 1.1
/// ```
public indirect enum FetchExpression: Hashable, Sendable {
    /// A constant value (`NULL`, numbers, strings, `TRUE`, dates and other `%@` values).
    case constant(PropertyValue)
    /// A literal collection `{a, b, …}` (also what `%@` with an array becomes).
    case collection([FetchExpression])
    /// A dotted key path (`a.b.c`, no collection operators) evaluated on `base`
    /// (the evaluated object, `SELF`, by default).
    case keyPath(String, on: FetchExpression = .evaluatedObject)
    /// A `$VARIABLE`, substituted or bound at evaluation.
    case variable(String)
    /// `SELF`: the evaluated object.
    case evaluatedObject
    /// A collection operator applied to a collection, then optionally to a key path of
    /// each element: `employees.@count`, `employees.@avg.salary`.
    case collectionOperator(FetchCollectionOperator, of: FetchExpression, key: String?)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which
    /// `predicate` is true with `$variable` bound to the element.
    case subquery(collection: FetchExpression, variable: String, predicate: FetchPredicate)
    /// A function applied to arguments: arithmetic (`salary * 1.1`), an aggregate
    /// (`sum:(employees.salary)`), a string or numeric function, `now()`, `CAST(x, 'Type')`.
    case function(FetchFunction, [FetchExpression])
    /// `TERNARY(predicate, a, b)`: `a` where the predicate is true, else `b`.
    case conditional(FetchPredicate, then: FetchExpression, else: FetchExpression)
    /// A subscript: `items[FIRST]`, `items[LAST]`, `items[SIZE]`, `(SELF.g)[0]`, `SELF['key']`.
    case index(FetchExpression, FetchIndex)

    /// A key path from the evaluated object, collection operators included:
    /// `.key("employees.@sum.salary")` is the same tree the parser builds for that text.
    public static func key(_ path: String) -> FetchExpression {
        (try? PredicateKeyPaths.expression(components: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init), on: .evaluatedObject))
            ?? .keyPath(path)
    }
}

/// The collection operators: `@count @sum @avg @min @max`.
public enum FetchCollectionOperator: String, Hashable, Sendable, CaseIterable {
    /// `@count`: the number of elements (0 for an empty or NULL collection).
    case count = "@count"
    /// `@sum`: the sum of the non-NULL values (0 when there are none).
    case sum = "@sum"
    /// `@avg`: the average of the non-NULL values as a double (NULL when there are none).
    case avg = "@avg"
    /// `@min`: the least non-NULL value (NULL when there are none).
    case min = "@min"
    /// `@max`: the greatest non-NULL value (NULL when there are none).
    case max = "@max"
}

/// Builds key path expressions from components, shared by the parser, `%K` and the builder.
enum PredicateKeyPaths {
    /// Whether `name` may be written bare as a key path component.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isIdentifierStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isIdentifierPart)
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
    }

    /// The expression for `base.c1.c2…`, where a component may be a collection operator
    /// (`@count`) followed by the key path it applies to.
    /// - Throws: a message (not a StrataError) describing the bad component and its index.
    static func expression(components: [String], on base: FetchExpression) throws(KeyPathProblem) -> FetchExpression {
        var plain: [String] = []
        var index = 0
        while index < components.count {
            let component = components[index]
            if component.hasPrefix("@") {
                guard let op = FetchCollectionOperator(rawValue: component.lowercased()) else {
                    throw KeyPathProblem(index: index, message: "unknown collection operator '\(component)' (expected @count, @sum, @avg, @min or @max)")
                }
                let collection = plain.isEmpty ? base : FetchExpression.keyPath(plain.joined(separator: "."), on: base)
                let rest = Array(components[(index + 1)...])
                if let bad = rest.firstIndex(where: { $0.hasPrefix("@") }) {
                    throw KeyPathProblem(index: index + 1 + bad, message: "only one collection operator may appear in a key path")
                }
                if let bad = rest.firstIndex(where: { !isIdentifier($0) }) {
                    throw KeyPathProblem(index: index + 1 + bad, message: "'\(rest[bad])' is not a key name")
                }
                if op == .count && !rest.isEmpty {
                    throw KeyPathProblem(index: index + 1, message: "@count takes no key path after it")
                }
                return .collectionOperator(op, of: collection, key: rest.isEmpty ? nil : rest.joined(separator: "."))
            }
            guard isIdentifier(component) else {
                throw KeyPathProblem(index: index, message: "'\(component)' is not a key name")
            }
            plain.append(component)
            index += 1
        }
        return plain.isEmpty ? base : .keyPath(plain.joined(separator: "."), on: base)
    }

    /// What is wrong with a key path and at which component.
    struct KeyPathProblem: Error {
        var index: Int
        var message: String
    }
}
