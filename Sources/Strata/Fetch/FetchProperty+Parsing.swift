import Foundation

/// The text form of fetched properties, `department.name, sum:(salary) AS total`, read into
/// ``FetchProperty`` values: what `strata fetch --select` accepts, for a dictionary fetch
/// built in code (docs/SEMANTICS.md §6, "Computed and grouped fetches").
extension FetchProperty {
    /// Reads one item: an expression in NSExpression format with an optional `AS name`
    /// (`AS name:type` chooses the result type).
    ///
    /// ```swift
    /// let total = try FetchProperty(parsing: "sum:(salary) AS total", entity: employee)
    /// // .expression(ExpressionDescription(name: "total", expression: sum:(salary), resultType: .integer64))
    /// ```
    ///
    /// A bare attribute or to-one key path is ``key(_:)``; any other item is an
    /// ``ExpressionDescription`` named by its `AS` or, without one, by its text. The result
    /// type, unless given, is inferred from `entity`: `count:` and `length:` integers,
    /// `average:` `median:` `stddev:` and `/` doubles, `sum:` `min:` `max:` and `+ - *` the
    /// type of their arguments, a key path its attribute's type; otherwise double.
    /// - Throws: `.predicateSyntax` naming the column of what does not parse.
    public init(parsing item: String, entity: EntityDescription) throws {
        let item = item.trimmingCharacters(in: .whitespaces)
        guard !item.isEmpty else { throw StrataError(.predicateSyntax, "An empty fetched property.") }
        var expressionText = item
        var name: String?
        var type: AttributeType?
        // The last top-level ` AS ` (case-insensitive) names the item.
        if let range = item.range(of: " as ", options: [.caseInsensitive, .backwards]),
           !item[range.upperBound...].contains(where: { "()'\"{}[]".contains($0) }) {
            expressionText = String(item[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
            let label = item[range.upperBound...].trimmingCharacters(in: .whitespaces)
            let parts = label.split(separator: ":", maxSplits: 1).map(String.init)
            let column = item.distance(from: item.startIndex, to: range.upperBound) + 1
            guard let given = parts.first, !given.isEmpty, given.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw StrataError(.predicateSyntax, "'AS' needs a name of letters, digits and _ at column \(column) of '\(item)'.",
                                  context: .init { $0.column = column })
            }
            name = given
            if parts.count == 2 {
                guard let named = AttributeType(rawValue: parts[1]) else {
                    throw StrataError(.predicateSyntax,
                                      "'\(parts[1])' is not a type (\(AttributeType.allCases.map(\.rawValue).joined(separator: ", "))) at column \(column + given.count + 1) of '\(item)'.",
                                      context: .init { $0.column = column + given.count + 1 })
                }
                type = named
            }
        }
        let expression = try FetchExpression(format: expressionText)
        if name == nil, type == nil, case .keyPath(let path, .evaluatedObject) = expression, !path.contains("@") {
            self = .key(path)
            return
        }
        self = .expression(ExpressionDescription(
            name: name ?? expressionText, expression: expression,
            resultType: type ?? Self._inferredType(expression, entity: entity) ?? .double))
    }

    /// Reads a comma-separated list of items (commas inside parentheses, braces, brackets
    /// and quotes do not separate), each as ``init(parsing:entity:)``.
    ///
    /// ```swift
    /// request.resultType = .dictionary
    /// request.propertiesToFetch = try FetchProperty.list(parsing: "department.name, sum:(salary) AS total", entity: employee)
    /// request.propertiesToGroupBy = ["department.name"]
    /// ```
    /// - Throws: as ``init(parsing:entity:)``.
    /// - Complexity: O(length of `text`) besides parsing each expression.
    public static func list(parsing text: String, entity: EntityDescription) throws -> [FetchProperty] {
        try items(of: text).map { try FetchProperty(parsing: $0.text, entity: entity) }
    }

    /// Splits at commas outside parentheses, braces, brackets and quotes; each piece
    /// trimmed, with the 0-based offset of its first character (`strata fetch --select`
    /// places its errors with it).
    package static func items(of text: String) -> [(text: String, offset: Int)] {
        var pieces: [(text: String, offset: Int)] = []
        var depth = 0
        var quote: Character?
        var current = ""
        var start = 0
        func trimmed() -> (text: String, offset: Int) {
            let leading = current.prefix { $0 == " " || $0 == "\t" }.count
            return (current.trimmingCharacters(in: .whitespaces), start + leading)
        }
        for (offset, character) in text.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if "({[".contains(character) {
                depth += 1
            } else if ")}]".contains(character) {
                depth -= 1
            } else if character == ",", depth == 0 {
                pieces.append(trimmed())
                current = ""
                start = offset + 1
                continue
            }
            current.append(character)
        }
        pieces.append(trimmed())
        return pieces
    }

    /// The attribute type an expression's value has, where it can be told from the model.
    static func _inferredType(_ expression: FetchExpression, entity: EntityDescription) -> AttributeType? {
        func argument(_ arguments: [FetchExpression], _ index: Int) -> AttributeType? {
            index < arguments.count ? _inferredType(arguments[index], entity: entity) : nil
        }
        switch expression {
        case .constant(let value):
            return value.literalAttributeType
        case .keyPath(let path, .evaluatedObject):
            var current = entity
            let keys = entity.joiningCompositeKeys(path.split(separator: ".").map(String.init))
            for (index, key) in keys.enumerated() {
                if let attribute = current.attributesByName[key] {
                    let rest = keys[(index + 1)...]
                    if rest.isEmpty { return attribute.attributeType }
                    // `name.length`: a string's length, the only key a value has.
                    return attribute.attributeType == .string && rest.elementsEqual(["length"]) ? .integer64 : nil
                }
                guard let relationship = current.relationshipsByName[key] else { return nil }
                current = current.destination(of: relationship)
            }
            return nil
        case .collectionOperator(let op, _, _):
            return op == .count ? .integer64 : (op == .avg ? .double : nil)
        case .conditional(_, let then, let otherwise):
            return _inferredType(then, entity: entity) ?? _inferredType(otherwise, entity: entity)
        case .function(let function, let arguments):
            switch function {
            case .count, .length, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement, .randomBelow:
                return .integer64
            case .average, .median, .standardDeviation, .squareRoot, .log, .naturalLogarithm, .exponential, .random, .raise:
                return .double
            case .uppercase, .lowercase, .canonical: return .string
            case .now: return .date
            case .sum, .min, .max, .mode, .absoluteValue, .floor, .ceiling, .truncate, .noIndex:
                let type = argument(arguments, 0)
                return type?.isInteger == true ? .integer64 : type
            case .divide:
                return argument(arguments, 0) == .decimal ? .decimal : .double
            case .add, .subtract, .multiply, .modulus:
                let types = [argument(arguments, 0), argument(arguments, 1)]
                if types.contains(.date) { return function == .subtract && types == [.date, .date] ? .double : .date }
                if types.contains(where: { $0?.valueKind == .double }) { return .double }
                if types.contains(.decimal) { return .decimal }
                return types.allSatisfy { $0?.isInteger == true || $0 == .boolean } ? .integer64 : nil
            case .castObject:
                guard arguments.count == 2, case .constant(.string(let name)) = arguments[1] else { return nil }
                switch name {
                case "NSString": return .string
                case "NSDate": return .date
                case "NSDecimalNumber": return .decimal
                default: return .double
                }
            }
        default: return nil
        }
    }
}
