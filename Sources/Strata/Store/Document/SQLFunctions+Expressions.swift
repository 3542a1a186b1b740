import Foundation

/// The registered functions behind pushed-down expressions (docs/SQL.md §2b): what SQLite
/// cannot compute with the evaluator's exact value (checked integer arithmetic, decimals,
/// Foundation's case mapping, UTF-16 lengths, averages, medians and standard deviations as
/// the evaluator sums them, `[l]`/`[n]` string order). Each calls the evaluator's own
/// function (`ExpressionFunctions`, `PredicateValueRules`), so SQL and memory agree by
/// construction.
///
/// Values reach Swift as SQLite stores them, so each call names the kinds of its arguments
/// (one letter each, ``kindCode(_:)``): INTEGER may be an integer or a boolean, REAL a double
/// or a date, TEXT a string or a decimal.
///
/// ```sql
/// strata_apply('multiply:by:', 'ii', t."salary", ?1)      -- salary * 2, overflow an error
/// strata_aggregate('median:', 'f', group_concat(printf('%!.17g', c1."rating"), ','))
/// strata_compare_text(t."lastName", ?2, 4) < 0             -- lastName <[l] ?2
/// ```
extension SQLFunctions {
    /// `strata_apply(name, kinds, args…)`: `ExpressionFunctions.apply` of the function named
    /// by Foundation's name to the arguments, decoded by `kinds`.
    static let apply = "strata_apply"
    /// `strata_aggregate(name, kind, group_concat(x, ','))`: `ExpressionFunctions.aggregate`
    /// of the listed values (NULL: none).
    static let aggregate = "strata_aggregate"
    /// `strata_compare_text(a, b, options)`: -1, 0, 1 or NULL, `PredicateValueRules.compare`
    /// of two strings with every option (`[l]`, `[n]` too).
    static let compareText = "strata_compare_text"

    /// The functions of this file, for ``names``.
    static let expressionNames = [apply, aggregate, compareText]

    /// The letter that names a kind in a `strata_apply` call.
    static func kindCode(_ kind: SQLValueKind) -> Character? {
        switch kind {
        case .integer: return "i"
        case .boolean: return "b"
        case .double: return "f"
        case .decimal: return "m"
        case .string: return "s"
        case .date: return "t"
        default: return nil
        }
    }

    /// Reads a stored value whose kind is `code`.
    static func decode(_ value: SQLiteValue, code: Character, function: String) throws -> PropertyValue {
        let type: AttributeType
        switch code {
        case "i": type = .integer64
        case "b": type = .boolean
        case "f": type = .double
        case "m": type = .decimal
        case "s": type = .string
        case "t": type = .date
        default: throw StrataError(.predicateEvaluation, "\(function): unknown argument kind '\(code)'")
        }
        return try SnapshotValueCoding.decode(value, as: type, column: "argument of \(function)")
    }

    /// Installs the expression functions (called by ``register(on:)``).
    static func registerExpressions(on connection: SQLiteConnection) throws {
        try connection.registerFunction(name: apply, argumentCount: -1, deterministic: true) { arguments in
            guard arguments.count >= 2, case .text(let name) = arguments[0], let function = FetchFunction(rawValue: name),
                  case .text(let kinds) = arguments[1], kinds.count == arguments.count - 2 else {
                throw StrataError(.predicateEvaluation, "\(apply) needs a function name, argument kinds and the arguments")
            }
            let values = try zip(kinds, arguments.dropFirst(2)).map { try decode($1, code: $0, function: name) }
            return SnapshotValueCoding.encode(try ExpressionFunctions.apply(function, values, now: Date()))
        }
        try connection.registerFunction(name: aggregate, argumentCount: 3, deterministic: true) { arguments in
            guard case .text(let name) = arguments[0], let function = FetchFunction(rawValue: name), function.isAggregate,
                  case .text(let kind) = arguments[1], let code = kind.first else {
                throw StrataError(.predicateEvaluation, "\(aggregate) needs an aggregate's name, a kind and a list")
            }
            let list: String
            switch arguments[2] {
            case .null: list = ""
            case .text(let text): list = text
            case .integer(let number): list = String(number)
            case .real(let number): list = String(number)
            case .blob: throw StrataError(.predicateEvaluation, "\(aggregate) needs a list of numbers")
            }
            // Integers and decimals come as their exact text, REALs as printf('%!.17g'): all round-trip.
            let values = try list.split(separator: ",").map { part -> PropertyValue in
                let text = String(part)
                switch code {
                case "i", "b":
                    guard let number = Int64(text) else { throw StrataError(.predicateEvaluation, "\(name): \(text.debugDescription) is not an integer") }
                    return code == "b" ? .boolean(number != 0) : .integer(number)
                case "m":
                    guard let number = parseDecimal(text) else { throw StrataError(.predicateEvaluation, "\(name): \(text.debugDescription) is not a decimal") }
                    return .decimal(number)
                default:
                    guard let number = Double(text) else { throw StrataError(.predicateEvaluation, "\(name): \(text.debugDescription) is not a number") }
                    return code == "t" ? .date(Date(timeIntervalSinceReferenceDate: number)) : .double(number)
                }
            }
            return SnapshotValueCoding.encode(try ExpressionFunctions.aggregate(function, values))
        }
        try connection.registerFunction(name: compareText, argumentCount: 3, deterministic: true) { arguments in
            if arguments[0].isNull || arguments[1].isNull { return .null }
            guard case .text(let a) = arguments[0], case .text(let b) = arguments[1] else {
                throw StrataError(.predicateEvaluation, "\(compareText) needs two strings")
            }
            let order = try PredicateValueRules.compare(.string(a), .string(b), options: try options(arguments[2]),
                                                        equalityOnly: false, operatorName: compareText)
            return order.map { .integer(Int64($0)) } ?? .null
        }
    }
}
