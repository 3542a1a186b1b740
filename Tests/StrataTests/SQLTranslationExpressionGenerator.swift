import Foundation
@testable import Strata

/// Random expressions for the differential test: arithmetic over mixed kinds and NULLs,
/// numeric and string functions, aggregates over to-manys, TERNARY, CAST, subscripts,
/// `IN` a string and the `[l]`/`[n]` options — SQL (pushed down or residual) must agree with
/// the evaluator on every one.
///
/// Integer products keep one side a small constant: an overflow is an error in both, but
/// which row raises it first is not part of the contract (SQLite may test the conjuncts of a
/// row in another order than memory does), so the generator leaves overflows to the
/// dedicated test in SQLExpressionPushdownTests.
extension SQLPredicateGenerator {
    static let numericKeys: [String: [(String, SQLValueKind)]] = [
        "Employee": [("salary", .integer), ("employeeID", .integer), ("rating", .double), ("bonus", .decimal), ("active", .boolean)],
        "Department": [("budget", .decimal)],
        "Project": [],
    ]
    static let stringKeys: [String: [String]] = [
        "Employee": ["firstName", "lastName", "email", "manager.lastName", "department.name"],
        "Department": ["name"],
        "Project": ["name"],
    ]
    static let dateKeys: [String: [String]] = [
        "Employee": ["startDate", "manager.startDate"],
        "Department": [],
        "Project": ["deadline"],
    ]

    /// One comparison whose sides are expressions.
    mutating func expressionComparison(_ entity: String, base: FetchExpression) -> FetchComparison {
        switch int(9) {
        case 0, 1, 2:
            let lhs = numeric(entity, depth: 0, base: base)
            let rhs: FetchExpression = chance(30) ? numeric(entity, depth: 1, base: base) : .constant(numberConstant())
            return FetchComparison(lhs, pick([.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]), rhs)
        case 3:
            let lhs = text(entity, base: base)
            let op: FetchComparison.Operator = pick([.equalTo, .notEqualTo, .lessThan, .beginsWith, .contains, .endsWith])
            return FetchComparison(lhs, op, .constant(constant(.string)), options: expressionOptions())
        case 4:
            // IN with a string on the right: a substring test.
            let part: FetchExpression = chance(70) ? .constant(.string(pick(Self.fragments))) : text(entity, base: base)
            return FetchComparison(part, .in, text(entity, base: base), options: expressionOptions())
        case 5:
            guard let key = (Self.dateKeys[entity] ?? []).randomElement(using: &random) else { return expressionComparison(entity, base: base) }
            let seconds = FetchExpression.constant(pick([.integer(86_400), .double(0.5), .integer(-1_000_000), .null]))
            let lhs = FetchExpression.function(pick([.add, .subtract]), [.keyPath(key, on: base), seconds])
            if chance(40) {
                // date - date: seconds between them, a double.
                let other = FetchExpression.constant(constant(.date))
                return FetchComparison(.function(.subtract, [.keyPath(key, on: base), other]), pick([.greaterThan, .equalTo, .lessThan]),
                                       .constant(pick([.integer(0), .double(86_400.5), .double(-1_000_000.25)])))
            }
            return FetchComparison(lhs, pick([.greaterThan, .equalTo, .lessThanOrEqualTo]), .constant(constant(.date)))
        case 6:
            // A string option on a plain comparison: [l], [n] and their mixes.
            let key = pick(Self.stringKeys[entity] ?? ["name"])
            return FetchComparison(.keyPath(key, on: base), pick([.equalTo, .lessThan, .greaterThanOrEqualTo, .beginsWith, .like]),
                                   .constant(.string(pick(Self.fragments + SQLTestDataset.lastNames + ["*a*", "M?ller"]))),
                                   options: expressionOptions())
        default:
            let lhs = FetchExpression.conditional(.comparison(comparison(entity, base: base, allowCollections: base == .evaluatedObject && chance(30))),
                                                  then: numeric(entity, depth: 1, base: base), else: numeric(entity, depth: 1, base: base))
            return FetchComparison(lhs, pick([.equalTo, .greaterThan, .lessThan]), .constant(numberConstant()))
        }
    }

    mutating func expressionOptions() -> FetchComparison.Options {
        pick([[], .caseInsensitive, .localeSensitive, [.caseInsensitive, .localeSensitive], .normalized,
              [.caseDiacriticInsensitive, .normalized], [.diacriticInsensitive, .localeSensitive, .normalized]])
    }

    /// A number, NULL now and then, of every numeric kind.
    mutating func numberConstant() -> PropertyValue {
        switch int(8) {
        case 0: return .null
        case 1: return .double(pick([0.5, 2.5, -2.25, 1e300, 0.1]))
        case 2: return .decimal(pick([Decimal(string: "0.1")!, Decimal(string: "2.5")!, Decimal(-3), Decimal(string: "1234.5678")!]))
        case 3: return .boolean(chance(50))
        default: return .integer(pick([0, 1, 2, 3, -1, 7, 1000, 5000, 52_000, 9_007_199_254_740_993]))
        }
    }

    /// A numeric expression (its kind is whatever the evaluator makes of it).
    mutating func numeric(_ entity: String, depth: Int, base: FetchExpression) -> FetchExpression {
        let keys = Self.numericKeys[entity] ?? []
        if depth >= 2 || chance(35) {
            if !keys.isEmpty, chance(70) { return .keyPath(pick(keys).0, on: base) }
            return .constant(numberConstant())
        }
        let next = depth + 1
        switch int(12) {
        case 0, 1:
            return .function(pick([.add, .subtract]), [numeric(entity, depth: next, base: base), numeric(entity, depth: next, base: base)])
        case 2:
            // One side a small constant, so that no product overflows (see the type's note).
            let small = FetchExpression.constant(pick([.integer(2), .integer(-3), .double(1.5), .decimal(Decimal(string: "0.5")!), .null]))
            return .function(.multiply, chance(50) ? [numeric(entity, depth: next, base: base), small] : [small, numeric(entity, depth: next, base: base)])
        case 3:
            return .function(pick([.divide, .modulus]), [numeric(entity, depth: next, base: base), numeric(entity, depth: next, base: base)])
        case 4:
            return .function(pick([.absoluteValue, .floor, .ceiling, .truncate, .squareRoot, .naturalLogarithm, .log, .exponential]),
                             [numeric(entity, depth: next, base: base)])
        case 5:
            return .function(.raise, [numeric(entity, depth: next, base: base), .constant(pick([.integer(2), .double(0.5), .integer(-1)]))])
        case 6:
            guard let (path, element) = toMany(entity), base == .evaluatedObject else { return numeric(entity, depth: next, base: base) }
            let candidates = Self.numericKeys[element] ?? []
            if candidates.isEmpty || chance(25) {
                return chance(50) ? .index(.keyPath(path), .size) : .function(.count, [.keyPath(path)])
            }
            let function: FetchFunction = pick([.sum, .count, .min, .max, .average, .median, .standardDeviation])
            return .function(function, [.keyPath("\(path).\(pick(candidates).0)")])
        case 7:
            let key = pick(Self.stringKeys[entity] ?? ["name"])
            return chance(50) ? .keyPath("\(key).length", on: base) : .function(.length, [.keyPath(key, on: base)])
        case 8:
            let items = (0..<(1 + int(3))).map { _ in numeric(entity, depth: next, base: base) }
            let index: FetchIndex = pick([.first, .last, .size, .at(.constant(.integer(0)))])
            return .index(.collection(items), index)
        case 9:
            if let key = (Self.dateKeys[entity] ?? []).randomElement(using: &random) {
                return .function(.castObject, [.keyPath(key, on: base), .constant(.string("NSNumber"))])
            }
            return .function(.noIndex, [numeric(entity, depth: next, base: base)])
        case 10:
            guard !keys.isEmpty else { return numeric(entity, depth: next, base: base) }
            return .index(base, .at(.constant(.string(pick(keys).0))))
        default:
            let integers = keys.filter { $0.1 == .integer }
            guard !integers.isEmpty else { return numeric(entity, depth: next, base: base) }
            let function: FetchFunction = pick([.bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift])
            return .function(function, [.keyPath(pick(integers).0, on: base), .constant(.integer(Int64(int(8))))])
        }
    }

    /// A string expression.
    mutating func text(_ entity: String, base: FetchExpression) -> FetchExpression {
        let key = FetchExpression.keyPath(pick(Self.stringKeys[entity] ?? ["name"]), on: base)
        switch int(5) {
        case 0: return .function(.uppercase, [key])
        case 1: return .function(.lowercase, [key])
        case 2:
            let other = FetchExpression.keyPath(pick(Self.stringKeys[entity] ?? ["name"]), on: base)
            return .conditional(.comparison(FetchComparison(key, .lessThan, other)), then: key, else: other)
        default: return key
        }
    }
}
