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
    /// The expression in NSPredicate format: `"text"`, `department.name`, `$e.salary`,
    /// `employees.@sum.salary`, `{1, 2}`, `SUBQUERY(employees, $e, $e.salary > 10)`.
    public var predicateFormat: String {
        switch self {
        case .constant(let value): return PredicateLiterals.format(value)
        case .collection(let elements): return "{" + elements.map(\.predicateFormat).joined(separator: ", ") + "}"
        case .keyPath(let path, on: .evaluatedObject): return PredicateLiterals.keyPath(path)
        case .keyPath(let path, on: let base): return base.predicateFormat + "." + PredicateLiterals.keyPath(path)
        case .variable(let name): return "$" + name
        case .evaluatedObject: return "SELF"
        case .collectionOperator(let op, of: let collection, key: let key):
            var text = collection.predicateFormat + "." + op.rawValue
            if let key { text += "." + PredicateLiterals.keyPath(key) }
            return text
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(\(collection.predicateFormat), $\(variable), \(predicate.predicateFormat))"
        case .function(let function, let arguments):
            return function.rawValue + "(" + arguments.map(\.predicateFormat).joined(separator: ", ") + ")"
        case .conditional(let condition, let then, let otherwise):
            return "TERNARY(\(condition.predicateFormat), \(then.predicateFormat), \(otherwise.predicateFormat))"
        case .index(let base, let index):
            let inner = switch index {
            case .first: "FIRST"
            case .last: "LAST"
            case .size: "SIZE"
            case .at(let key): key.predicateFormat
            }
            return "(" + base.predicateFormat + ")[" + inner + "]"
        }
    }

    /// The same as ``predicateFormat``.
    public var description: String { predicateFormat }
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
