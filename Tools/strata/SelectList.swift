import Foundation
import Strata
import StrataToolSupport

/// `strata fetch --select` and `--group-by`: comma-separated items, each an expression in
/// NSExpression format with an optional `AS name` (`AS name:type` to choose the result
/// type), read into the library's ``FetchProperty`` values.
///
/// ```
/// department.name, sum:(salary) AS total, average:(salary) AS mean:integer64
/// ```
///
/// A bare attribute or to-one key path is itself (its name is the path); any other item is
/// an ``ExpressionDescription`` named by its `AS` or, without one, by its text. The
/// result type, unless given, is inferred: `count:` and `length:` integers, `average:`
/// `median:` `stddev:` and `/` doubles, `sum:` `min:` `max:` and `+ - *` the type of their
/// arguments, a key path its attribute's type.
enum SelectList {
    /// The items of `text` (`option` names the command-line option in errors).
    static func properties(_ text: String, option: String, entity: EntityDescription) throws -> [FetchProperty] {
        try split(text).map { item in
            try property(item.text, offset: item.offset, option: option, whole: text, entity: entity)
        }
    }

    /// Splits at commas outside parentheses, braces, brackets and quotes; each piece with
    /// the 0-based offset of its first character, trimmed.
    static func split(_ text: String) -> [(text: String, offset: Int)] {
        var pieces: [(text: String, offset: Int)] = []
        var depth = 0
        var quote: Character?
        var current = ""
        var start = 0
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
                pieces.append(trimmed(current, start))
                current = ""
                start = offset + 1
                continue
            }
            current.append(character)
        }
        pieces.append(trimmed(current, start))
        return pieces
    }

    private static func trimmed(_ text: String, _ offset: Int) -> (text: String, offset: Int) {
        let leading = text.prefix { $0 == " " || $0 == "\t" }.count
        return (text.trimmingCharacters(in: .whitespaces), offset + leading)
    }

    private static func property(_ item: String, offset: Int, option: String, whole: String, entity: EntityDescription) throws -> FetchProperty {
        func failure(_ message: String, column: Int) -> StrataError {
            StrataError(.predicateSyntax, "\(option): \(message) at column \(column) (in: \(FetchCommand.excerpt(whole, column: String(column))))",
                        context: ["position": String(column), "option": option])
        }
        guard !item.isEmpty else { throw failure("an empty item", column: offset + 1) }
        var expressionText = item
        var name: String?
        var type: AttributeType?
        // The last top-level ` AS ` (case-insensitive) names the item.
        if let range = item.range(of: " as ", options: [.caseInsensitive, .backwards]),
           !item[range.upperBound...].contains(where: { "()'\"{}[]".contains($0) }) {
            expressionText = String(item[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
            let label = item[range.upperBound...].trimmingCharacters(in: .whitespaces)
            let parts = label.split(separator: ":", maxSplits: 1).map(String.init)
            name = parts.first
            let nameColumn = offset + item.distance(from: item.startIndex, to: range.upperBound) + 1
            guard let name, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw failure("'AS' needs a name of letters, digits and _", column: nameColumn)
            }
            if parts.count == 2 {
                guard let given = AttributeType(rawValue: parts[1]) else {
                    throw failure("'\(parts[1])' is not a type (\(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))",
                                  column: nameColumn + name.count + 1)
                }
                type = given
            }
        }
        let expression: FetchExpression
        do {
            expression = try FetchExpression(format: expressionText)
        } catch var error as StrataError {
            let column = (error.context["position"].flatMap { Int($0) } ?? 1) + offset
            error.context["position"] = String(column)
            error.message = "\(option): \(error.message) (item at column \(offset + 1) of: \(FetchCommand.excerpt(whole, column: String(column))))"
            throw error
        }
        if name == nil, type == nil, case .keyPath(let path, .evaluatedObject) = expression, !path.contains("@") {
            return .key(path)
        }
        return .expression(ExpressionDescription(
            name: name ?? expressionText, expression: expression,
            resultType: type ?? inferredType(expression, entity: entity) ?? .double))
    }

    /// The attribute type an expression's value has, where it can be told from the model.
    static func inferredType(_ expression: FetchExpression, entity: EntityDescription) -> AttributeType? {
        func argument(_ arguments: [FetchExpression], _ index: Int) -> AttributeType? {
            index < arguments.count ? inferredType(arguments[index], entity: entity) : nil
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
            return inferredType(then, entity: entity) ?? inferredType(otherwise, entity: entity)
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
                if types.contains(.double) || types.contains(.float) { return .double }
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
