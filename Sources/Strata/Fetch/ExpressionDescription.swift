import Foundation

/// A computed column of a dictionary fetch: Core Data's `NSExpressionDescription`.
///
/// The ``expression`` is evaluated for each result row; in a fetch with aggregates (an
/// aggregate function such as `sum:` applied to a value of the fetched row, or
/// ``FetchRequest/propertiesToGroupBy``) it is evaluated once per group, each aggregate
/// reducing the group's rows. The dictionary key is ``name``.
///
/// ```swift
/// let total = ExpressionDescription(name: "total", expression: .function(.sum, [.key("salary")]),
///                                   resultType: .integer64)
/// let request = FetchRequest(entityName: "Employee")
/// request.resultType = .dictionary
/// request.propertiesToFetch = ["department.name", .expression(total)]
/// request.propertiesToGroupBy = ["department.name"]
/// // [["department.name": "R&D", "total": 310000], …]
/// ```
public struct ExpressionDescription: Hashable, Sendable {
    /// The key of the value in each result dictionary; also how ``FetchRequest/havingPredicate``
    /// and sort descriptors name it.
    public var name: String
    /// What is computed.
    public var expression: FetchExpression
    /// The type of the value: SQLite's answer is read back as this type, and an in-memory
    /// answer converted to it (an integer sum fetched as `.double` is a double).
    public var resultType: AttributeType

    /// Creates an expression description.
    public init(name: String, expression: FetchExpression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }
}

/// One entry of ``FetchRequest/propertiesToFetch`` or ``FetchRequest/propertiesToGroupBy``:
/// a key path of the fetched entity, or a computed ``ExpressionDescription``.
///
/// String literals are key paths, so `request.propertiesToFetch = ["lastName", "department.name"]`
/// reads as before.
///
/// ```swift
/// request.propertiesToFetch = ["department.name",
///                              .expression(ExpressionDescription(name: "staff", expression: .function(.count, [.key("salary")]),
///                                                                resultType: .integer64))]
/// ```
public enum FetchProperty: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// An attribute or to-one key path (`"department.name"`); its key in the result is the path.
    case key(String)
    /// A computed value.
    case expression(ExpressionDescription)

    /// A key path.
    public init(stringLiteral value: String) {
        self = .key(value)
    }

    /// The key of the value in a result dictionary.
    public var name: String {
        switch self {
        case .key(let path): return path
        case .expression(let description): return description.name
        }
    }

    /// The expression computed: a key path is the key path expression.
    public var expression: FetchExpression {
        switch self {
        case .key(let path): return .key(path)
        case .expression(let description): return description.expression
        }
    }

    /// `department.name`, or `sum:(salary) AS total` for an expression.
    public var description: String {
        switch self {
        case .key(let path): return path
        case .expression(let description): return "\(description.expression.predicateFormat) AS \(description.name)"
        }
    }
}
