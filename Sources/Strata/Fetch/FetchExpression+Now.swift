import Foundation

extension FetchPredicate {
    /// A copy with every `now()` replaced by the constant date `now`.
    ///
    /// `now()` is one instant for a whole fetch or batch update: the request pins it once
    /// with this method, so that every row, the SQL the store runs and the rows evaluated in
    /// memory all see the same date (and a batch update records that date in its log).
    ///
    /// ```swift
    /// let p = try FetchPredicate(format: "due < now()").replacingNow(with: Date())
    /// ```
    public func replacingNow(with now: Date) -> FetchPredicate {
        switch self {
        case .constant: return self
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.replacingNow(with: now)
            comparison.rhs = comparison.rhs.replacingNow(with: now)
            return .comparison(comparison)
        case .and(let terms): return .and(terms.map { $0.replacingNow(with: now) })
        case .or(let terms): return .or(terms.map { $0.replacingNow(with: now) })
        case .not(let inner): return .not(inner.replacingNow(with: now))
        }
    }
}

extension FetchExpression {
    /// A copy with every `now()` replaced by the constant date `now` (see
    /// ``FetchPredicate/replacingNow(with:)``).
    ///
    /// ```swift
    /// let expiry = FetchExpression.function(.add, [.function(.now, []), .constant(86_400)])
    /// expiry.replacingNow(with: Date(timeIntervalSinceReferenceDate: 0))   // CAST(0, "NSDate") + 86400
    /// ```
    public func replacingNow(with now: Date) -> FetchExpression {
        switch self {
        case .constant, .evaluatedObject, .variable: return self
        case .function(.now, let arguments) where arguments.isEmpty: return .constant(.date(now))
        case .function(let function, let arguments): return .function(function, arguments.map { $0.replacingNow(with: now) })
        case .collection(let elements): return .collection(elements.map { $0.replacingNow(with: now) })
        case .keyPath(let path, let base): return .keyPath(path, on: base.replacingNow(with: now))
        case .collectionOperator(let op, let collection, let key):
            return .collectionOperator(op, of: collection.replacingNow(with: now), key: key)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection: collection.replacingNow(with: now), variable: variable, predicate: predicate.replacingNow(with: now))
        case .conditional(let condition, let then, let otherwise):
            return .conditional(condition.replacingNow(with: now), then: then.replacingNow(with: now), else: otherwise.replacingNow(with: now))
        case .index(let base, let index):
            let replaced: FetchIndex = if case .at(let key) = index { .at(key.replacingNow(with: now)) } else { index }
            return .index(base.replacingNow(with: now), replaced)
        }
    }
}
