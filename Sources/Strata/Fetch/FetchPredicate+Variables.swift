extension FetchPredicate {
    /// A copy with every free `$VARIABLE` replaced by its value (a SUBQUERY's own variable
    /// stays bound inside it), as fetch request templates need.
    ///
    /// ```swift
    /// let template = try FetchPredicate(format: "lastName == $NAME AND salary > $MIN")
    /// let p = try template.withSubstitutionVariables(["NAME": "Quinn", "MIN": 5000])
    /// // lastName == "Quinn" AND salary > 5000
    /// ```
    /// - Throws: `StrataError(.predicateEvaluation)` naming the first variable that has no
    ///   value (`context.variable`).
    public func withSubstitutionVariables(_ variables: [String: PropertyValue]) throws -> FetchPredicate {
        try substituting(variables, bound: [])
    }

    /// The free `$VARIABLES` the predicate uses (not SUBQUERY variables).
    public var variableNames: Set<String> {
        var names: Set<String> = []
        collectVariables(into: &names, bound: [])
        return names
    }

    func substituting(_ variables: [String: PropertyValue], bound: Set<String>) throws -> FetchPredicate {
        switch self {
        case .constant: return self
        case .comparison(var comparison):
            comparison.lhs = try comparison.lhs.substituting(variables, bound: bound)
            comparison.rhs = try comparison.rhs.substituting(variables, bound: bound)
            return .comparison(comparison)
        case .and(let terms): return .and(try terms.map { try $0.substituting(variables, bound: bound) })
        case .or(let terms): return .or(try terms.map { try $0.substituting(variables, bound: bound) })
        case .not(let inner): return .not(try inner.substituting(variables, bound: bound))
        }
    }

    func collectVariables(into names: inout Set<String>, bound: Set<String>) {
        switch self {
        case .constant: break
        case .comparison(let comparison):
            comparison.lhs.collectVariables(into: &names, bound: bound)
            comparison.rhs.collectVariables(into: &names, bound: bound)
        case .and(let terms), .or(let terms):
            for term in terms { term.collectVariables(into: &names, bound: bound) }
        case .not(let inner): inner.collectVariables(into: &names, bound: bound)
        }
    }
}

extension FetchExpression {
    func substituting(_ variables: [String: PropertyValue], bound: Set<String>) throws -> FetchExpression {
        switch self {
        case .constant, .evaluatedObject: return self
        case .variable(let name):
            if bound.contains(name) { return self }
            guard let value = variables[name] else {
                throw StrataError(.predicateEvaluation, "no value for variable $\(name)", context: .init { $0.variable = name })
            }
            return .constant(value)
        case .collection(let elements): return .collection(try elements.map { try $0.substituting(variables, bound: bound) })
        case .keyPath(let path, let base): return .keyPath(path, on: try base.substituting(variables, bound: bound))
        case .collectionOperator(let op, let collection, let key):
            return .collectionOperator(op, of: try collection.substituting(variables, bound: bound), key: key)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: try collection.substituting(variables, bound: bound), variable: variable,
                             predicate: try predicate.substituting(variables, bound: bound.union([variable])))
        case .function(let function, let arguments):
            return .function(function, try arguments.map { try $0.substituting(variables, bound: bound) })
        case .conditional(let condition, let then, let otherwise):
            return .conditional(try condition.substituting(variables, bound: bound),
                                then: try then.substituting(variables, bound: bound),
                                else: try otherwise.substituting(variables, bound: bound))
        case .index(let base, let index):
            let substituted: FetchIndex = if case .at(let key) = index { .at(try key.substituting(variables, bound: bound)) } else { index }
            return .index(try base.substituting(variables, bound: bound), substituted)
        }
    }

    func collectVariables(into names: inout Set<String>, bound: Set<String>) {
        switch self {
        case .constant, .evaluatedObject: break
        case .variable(let name): if !bound.contains(name) { names.insert(name) }
        case .collection(let elements): for element in elements { element.collectVariables(into: &names, bound: bound) }
        case .keyPath(_, let base): base.collectVariables(into: &names, bound: bound)
        case .collectionOperator(_, let collection, _): collection.collectVariables(into: &names, bound: bound)
        case .subquery(let collection, let variable, let predicate):
            collection.collectVariables(into: &names, bound: bound)
            predicate.collectVariables(into: &names, bound: bound.union([variable]))
        case .function(_, let arguments):
            for argument in arguments { argument.collectVariables(into: &names, bound: bound) }
        case .conditional(let condition, let then, let otherwise):
            condition.collectVariables(into: &names, bound: bound)
            then.collectVariables(into: &names, bound: bound)
            otherwise.collectVariables(into: &names, bound: bound)
        case .index(let base, let index):
            base.collectVariables(into: &names, bound: bound)
            if case .at(let key) = index { key.collectVariables(into: &names, bound: bound) }
        }
    }
}
