import Foundation

extension FetchPredicate: CustomStringConvertible {
    /// The predicate in NSPredicate format, canonically spaced, that parses back to an equal
    /// predicate.
    ///
    /// ```swift
    /// try FetchPredicate(format: "salary>5000&&name beginswith[c] 'Q'").predicateFormat
    /// // salary > 5000 AND name BEGINSWITH[c] "Q"
    /// ```
    /// Compounds of two or more predicates are parenthesized when nested. The exceptions to
    /// the round trip: an empty AND prints `TRUEPREDICATE` and an empty OR `FALSEPREDICATE`;
    /// a one-element AND/OR prints its element; object IDs print as
    /// `CAST("x-strata://…", "NSManagedObjectID")`, which does not parse (pass them as `%@`);
    /// NaN never equals itself.
    public var predicateFormat: String {
        switch self {
        case .constant(true): return "TRUEPREDICATE"
        case .constant(false): return "FALSEPREDICATE"
        case .comparison(let comparison): return comparison.predicateFormat
        case .and(let terms): return Self.compoundFormat(terms, joiner: " AND ", empty: "TRUEPREDICATE")
        case .or(let terms): return Self.compoundFormat(terms, joiner: " OR ", empty: "FALSEPREDICATE")
        case .not(let inner): return "NOT " + inner.nestedFormat
        }
    }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }

    private static func compoundFormat(_ terms: [FetchPredicate], joiner: String, empty: String) -> String {
        switch terms.count {
        case 0: return empty
        case 1: return terms[0].predicateFormat
        default: return terms.map(\.nestedFormat).joined(separator: joiner)
        }
    }

    /// The format, parenthesized when it is a compound of two or more terms.
    private var nestedFormat: String {
        switch self {
        case .and(let terms) where terms.count > 1, .or(let terms) where terms.count > 1:
            return "(" + predicateFormat + ")"
        default:
            return predicateFormat
        }
    }
}

extension FetchComparison: CustomStringConvertible {
    /// The comparison in NSPredicate format: `ANY employees.salary >= 10`.
    public var predicateFormat: String {
        let prefix = modifier == .direct ? "" : modifier.rawValue + " "
        return prefix + lhs.predicateFormat + " " + op.rawValue + options.formatSuffix + " " + rhs.predicateFormat
    }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
}

extension FetchExpression: CustomStringConvertible {
    /// The expression in NSPredicate format, parenthesized only where needed, that parses
    /// back to an equal expression: `"text"`, `department.name`, `$e.salary`,
    /// `employees.@sum.salary`, `{1, 2}`, `SUBQUERY(employees, $e, $e.salary > 10)`,
    /// `(a + b) * -c ** 2`, `sum:(items.price)`, `TERNARY(f == YES, 1, 0)`, `items[FIRST]`.
    ///
    /// `0 - x` prints as `-x` (the same tree), and arithmetic functions with their two
    /// arguments as operators (`add:to:(a, b)` is `a + b`).
    public var predicateFormat: String { ExpressionFormat.text(self) }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
}

/// Prints expressions with the fewest parentheses that keep the tree: each form has a
/// binding strength, and an operand weaker than its place requires is parenthesized.
enum ExpressionFormat {
    /// Binding strengths, loosest first.
    private enum Level: Int, Comparable {
        case additive = 1, multiplicative, power, unary, postfix
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    static func text(_ expression: FetchExpression) -> String {
        switch expression {
        case .constant(let value): return PredicateLiterals.format(value)
        case .collection(let elements): return "{" + list(elements) + "}"
        case .keyPath(let path, on: .evaluatedObject): return PredicateLiterals.keyPath(path)
        case .keyPath(let path, on: let base):
            // A key path on a key path keeps its parentheses, or the two would read as one.
            let baseText: String
            switch base {
            case .keyPath, .collectionOperator: baseText = "(" + text(base) + ")"
            default: baseText = postfixBase(base)
            }
            return baseText + "." + PredicateLiterals.keyPath(path)
        case .variable(let name): return "$" + name
        case .evaluatedObject: return "SELF"
        case .collectionOperator(let op, of: let collection, key: let key):
            // A key path base joins the operator's path: employees.@sum.salary.
            let base: String
            switch collection {
            case .keyPath: base = text(collection)
            case .collectionOperator: base = "(" + text(collection) + ")"   // one operator per path
            default: base = postfixBase(collection)
            }
            return base + "." + op.rawValue + (key.map { "." + PredicateLiterals.keyPath($0) } ?? "")
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(text(collection)), $\(variable), \(predicate.predicateFormat))"
        case .function(let function, let arguments):
            return functionText(function, arguments)
        case .conditional(let condition, let then, let otherwise):
            return "TERNARY(\(condition.predicateFormat), \(text(then)), \(text(otherwise)))"
        case .index(let base, let index):
            let inner: String
            switch index {
            case .first: inner = "FIRST"
            case .last: inner = "LAST"
            case .size: inner = "SIZE"
            case .at(.keyPath(let key, on: .evaluatedObject)) where ["FIRST", "LAST", "SIZE"].contains(key.uppercased()):
                inner = "#" + key   // a key named like the keywords
            case .at(let key): inner = text(key)
            }
            return postfixBase(base) + "[" + inner + "]"
        }
    }

    private static func list(_ elements: [FetchExpression]) -> String {
        elements.map(text).joined(separator: ", ")
    }

    private static func functionText(_ function: FetchFunction, _ arguments: [FetchExpression]) -> String {
        if function == .subtract, arguments.count == 2, arguments[0] == .constant(.integer(0)), !isNumber(arguments[1]) {
            return "-" + operand(arguments[1], atLeast: .unary)
        }
        if let symbol = function.infixOperator, arguments.count == 2, let level = level(of: function) {
            // + - * / associate to the left, ** to the right.
            let rightAssociative = function == .raise
            let left = operand(arguments[0], atLeast: rightAssociative ? Level(rawValue: level.rawValue + 1)! : level)
            let right = operand(arguments[1], atLeast: rightAssociative ? level : Level(rawValue: level.rawValue + 1)!)
            return left + " " + symbol + " " + right
        }
        if function == .castObject, arguments.count == 2, case .constant(.string(let type)) = arguments[1] {
            // A bare literal would be converted at parse time: parentheses keep the function.
            let value = isLiteralToken(arguments[0]) ? "(" + text(arguments[0]) + ")" : text(arguments[0])
            return "CAST(" + value + ", " + PredicateLiterals.string(type) + ")"
        }
        return function.rawValue + "(" + list(arguments) + ")"
    }

    private static func level(of function: FetchFunction) -> Level? {
        switch function {
        case .add, .subtract: return .additive
        case .multiply, .divide: return .multiplicative
        case .raise: return .power
        default: return nil
        }
    }

    /// How strongly `expression` binds as printed.
    private static func level(_ expression: FetchExpression) -> Level {
        guard case .function(let function, let arguments) = expression, arguments.count == 2 else { return .postfix }
        if function == .subtract, arguments[0] == .constant(.integer(0)), !isNumber(arguments[1]) { return .unary }
        return level(of: function) ?? .postfix
    }

    private static func operand(_ expression: FetchExpression, atLeast required: Level) -> String {
        level(expression) >= required ? text(expression) : "(" + text(expression) + ")"
    }

    /// The base of `.key` or `[index]`: constants and arithmetic need parentheses.
    private static func postfixBase(_ expression: FetchExpression) -> String {
        if case .constant = expression { return "(" + text(expression) + ")" }
        return operand(expression, atLeast: .postfix)
    }

    private static func isNumber(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .constant(.integer), .constant(.double): return true
        default: return false
        }
    }

    /// Whether the constant prints as one string or number token (CAST would fold it).
    private static func isLiteralToken(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .constant(.integer), .constant(.double(_)), .constant(.string): return true
        default: return false
        }
    }
}

/// How constants and key names are written in a format string.
enum PredicateLiterals {
    /// A key path with reserved words escaped as `#word`.
    static func keyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { component in
            PredicateParser.reservedWords.contains(component.uppercased()) ? "#" + component : String(component)
        }.joined(separator: ".")
    }

    /// A constant as a literal that the parser reads back to the same value.
    static func format(_ value: PropertyValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .double(let number): return double(number)
        case .decimal(let number): return "CAST(\(string(number.description)), \"NSDecimalNumber\")"
        case .string(let text): return string(text)
        case .boolean(let flag): return flag ? "TRUE" : "FALSE"
        case .date(let date): return "CAST(\(double(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let data): return "CAST(\(string(data.base64EncodedString())), \"NSData\")"
        case .uuid(let uuid): return "CAST(\(string(uuid.uuidString)), \"NSUUID\")"
        case .uri(let url): return "CAST(\(string(url.absoluteString)), \"NSURL\")"
        case .object(let id): return "CAST(\(string(id.description)), \"NSManagedObjectID\")"
        case .objects(let ids): return "{" + ids.map { format(.object($0)) }.joined(separator: ", ") + "}"
        }
    }

    /// A double that reads back as a double: always with a `.` or exponent.
    static func double(_ number: Double) -> String {
        if number.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
        if number.isInfinite { return number < 0 ? "-1e999" : "1e999" }
        let text = String(number)
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    /// A double-quoted string literal with `\\ \" \n \r \t` and other control characters
    /// escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .format
                    || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
