import Foundation

/// A value substituted for a `%@`, `%K`, `%d` or `%f` in a predicate format string.
///
/// Literals convert, so arguments read naturally:
/// ```swift
/// try FetchPredicate(format: "salary > %d AND name BEGINSWITH %@", 5000, "A")
/// try FetchPredicate(format: "%K IN %@", .key("department.name"), ["Sales", "R&D"])
/// try FetchPredicate(format: "department == %@", .object(departmentID))
/// ```
public enum PredicateArgument: Hashable, Sendable {
    /// A single value: for `%@`, or a number for `%d`/`%f`, or a string for `%K`.
    case value(PropertyValue)
    /// A key path, for `%K`.
    case key(String)
    /// A collection of values, for `%@` (after `IN`, `BETWEEN` or `CONTAINS`).
    case list([PropertyValue])

    /// An object, compared by identity: `department == %@`.
    public static func object(_ id: ManagedObjectID) -> PredicateArgument { .value(.object(id)) }

    /// A short name of the argument's kind, for error messages.
    var kindName: String {
        switch self {
        case .value(let value): return ModelValueRules.kindName(value)
        case .key: return "key path"
        case .list: return "list"
        }
    }
}

extension PredicateArgument: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral
{
    /// An integer literal is `.value(.integer)`.
    public init(integerLiteral value: Int64) { self = .value(.integer(value)) }
    /// A float literal is `.value(.double)`.
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
    /// A string literal is `.value(.string)` (also accepted by `%K` as a key path).
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    /// A boolean literal is `.value(.boolean)`.
    public init(booleanLiteral value: Bool) { self = .value(.boolean(value)) }
    /// `nil` is `.value(.null)`.
    public init(nilLiteral: ()) { self = .value(.null) }
    /// An array literal is `.list`.
    public init(arrayLiteral elements: PropertyValue...) { self = .list(elements) }
}
