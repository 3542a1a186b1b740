import Foundation

extension FetchPredicate {
    /// An upper bound of the relationship hops evaluating the predicate takes from the
    /// evaluated object: how many rows away the farthest value it reads lies. `salary > 5`
    /// reads the object's own row (0), `department.name == 'R&D'` the department's (1),
    /// `SUBQUERY(employees, $e, $e.manager.name == 'Ada').@count > 0` the employees' and
    /// their managers' (2).
    ///
    /// A document's fetch uses it to find the records whose answer its overlay of
    /// uncompacted segments can change (docs/ARCHITECTURE.md, "Reads: snapshot ⊕ overlay").
    /// Read from the expression tree: a constant such as `1.5` or a string with dots in it
    /// counts for nothing, and a long key path counts in full.
    package var relationshipHops: Int {
        switch self {
        case .constant: return 0
        case .comparison(let comparison): return max(comparison.lhs.relationshipHops, comparison.rhs.relationshipHops)
        case .and(let parts), .or(let parts): return parts.map(\.relationshipHops).max() ?? 0
        case .not(let inner): return inner.relationshipHops
        }
    }
}

extension FetchExpression {
    /// An upper bound of the relationship hops evaluating the expression takes from the
    /// evaluated object (``FetchPredicate/relationshipHops``).
    package var relationshipHops: Int {
        switch self {
        case .constant, .variable, .evaluatedObject:
            return 0
        case .collection(let elements):
            return elements.map(\.relationshipHops).max() ?? 0
        case .keyPath(let path, let base):
            // Every component but the last crosses a relationship; a key path on anything
            // but the evaluated object (a subquery's variable, an indexed member) first reads
            // the row of the object it starts from.
            let crossings = Self.components(of: path) - 1
            if case .evaluatedObject = base { return crossings }
            return base.relationshipHops + 1 + crossings
        case .collectionOperator(_, let base, let key):
            // `@count` reads the members' IDs from the owner's row; `@sum.salary` the members' rows.
            guard let key else { return base.relationshipHops }
            return base.relationshipHops + Self.components(of: key)
        case .subquery(let collection, _, let predicate):
            // The inner key paths start at the variable, and count the member's row themselves.
            return collection.relationshipHops + predicate.relationshipHops
        case .function(_, let arguments):
            return arguments.map(\.relationshipHops).max() ?? 0
        case .conditional(let condition, let then, let otherwise):
            return max(condition.relationshipHops, then.relationshipHops, otherwise.relationshipHops)
        case .index(let base, _):
            // The member an index picks is read by a key path on it, which counts that row.
            return base.relationshipHops
        }
    }

    /// The components of a key path (`department.manager.name`: 3).
    static func components(of path: String) -> Int {
        path.utf8.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
    }
}
