import Foundation

extension SQLPredicateTranslator {
    /// The R-tree narrowing of a fetch (docs/SQL.md §7): for each R-tree index of the
    /// entity's table whose every element the top-level conjuncts bound by numeric (or date)
    /// constants — `x BETWEEN {lo, hi}`, `x >= lo`, `x < hi`, `x == v` — a condition
    /// `t._pk IN (SELECT id FROM "<index>" WHERE max0 >= lo AND min0 <= hi …)`.
    ///
    /// Exact, because it only narrows: the conjuncts stay in the `WHERE` clause and decide;
    /// a row the R-tree lacks has a NULL element, which none of those comparisons accepts;
    /// the R-tree's 32-bit bounds are rounded outwards and the query compares overlap with
    /// bounds widened by one step, so no matching row is left out.
    func rTreeConditions(_ conjuncts: [FetchPredicate], entity: EntityDescription, translation: inout SQLTranslation) -> [String] {
        let table = schema.table(for: entity).name
        let indexes = schema.fetchIndexes.filter { $0.index.isRTree && $0.table == table }
        guard !indexes.isEmpty else { return [] }
        var bounds: [String: (low: Double?, high: Double?)] = [:]
        for conjunct in conjuncts {
            guard case .comparison(let comparison) = conjunct, comparison.modifier == .direct, comparison.options.isEmpty,
                  case .keyPath(let key, on: .evaluatedObject) = comparison.lhs, !key.contains("."),
                  let attribute = entity.attributesByName[key], !attribute.isTransient,
                  ManagedObjectModel.rTreeTypes.contains(attribute.attributeType) else { continue }
            func number(_ expression: FetchExpression) -> Double? {
                guard case .constant(let value) = expression else { return nil }
                switch (value, attribute.attributeType) {
                case (.date(let date), .date): return date.timeIntervalSinceReferenceDate
                case (.date, _), (_, .date): return nil
                case (.integer(let integer), _): return Double(integer)
                case (.double(let double), _): return double.isNaN ? nil : double
                default: return nil
                }
            }
            var low: Double?, high: Double?
            switch comparison.op {
            case .greaterThan, .greaterThanOrEqualTo: low = number(comparison.rhs)
            case .lessThan, .lessThanOrEqualTo: high = number(comparison.rhs)
            case .equalTo: low = number(comparison.rhs); high = low
            case .between:
                guard case .collection(let pair) = comparison.rhs, pair.count == 2 else { continue }
                low = number(pair[0]); high = number(pair[1])
            default: continue
            }
            var current = bounds[key] ?? (nil, nil)
            if let low { current.low = max(current.low ?? low, low) }
            if let high { current.high = min(current.high ?? high, high) }
            if low != nil || high != nil { bounds[key] = current }
        }
        var conditions: [String] = []
        let storage = schema.storage(of: entity)
        func column(_ key: String) -> String? {
            guard let slot = entity.slot(forKey: key), slot < storage.count, case .column(let name) = storage[slot] else { return nil }
            return name
        }
        for index in indexes {
            // Every element bounded, through the same column (a sibling entity's attribute
            // of the same name has a column of its own).
            let elements = index.index.elements.enumerated().map { ($0.offset, $0.element.property) }
            guard elements.allSatisfy({ bounds[$0.1] != nil && column($0.1) == index.columns[$0.0] }) else { continue }
            var terms: [String] = []
            for (position, property) in elements {
                let bound = bounds[property]!
                if let low = bound.low { terms.append("max\(position) >= \(translation.bind(.real(low.nextDown)))") }
                if let high = bound.high { terms.append("min\(position) <= \(translation.bind(.real(high.nextUp)))") }
            }
            conditions.append("t.\"_pk\" IN (SELECT id FROM \(SnapshotSchema.quote(index.sqlName)) WHERE \(terms.joined(separator: " AND ")))")
        }
        return conditions
    }
}
