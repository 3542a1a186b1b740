import OrderedCollections
import Foundation

/// The typed value of one property, shared by objects, the operation log, stores and
/// predicates.
///
/// `null` is distinct from `0`, `""` and empty data: a NULL salary matches neither
/// `salary == 0` nor `salary != 0`.
///
/// ```swift
/// employee.setValue(.integer(52_000), forKey: "salary")
/// if case .string(let name) = employee.value(forKey: "lastName") { print(name) }
/// ```
public enum PropertyValue: Hashable, Sendable {
    /// No value (SQL NULL, Swift `nil`).
    case null
    /// Integer 16, 32 and 64 attributes.
    case integer(Int64)
    /// Double and Float attributes.
    case double(Double)
    /// Decimal attributes, exact.
    case decimal(Decimal)
    /// String attributes.
    case string(String)
    /// Boolean attributes.
    case boolean(Bool)
    /// Date attributes.
    case date(Date)
    /// Binary Data and Transformable attributes (Transformable values are JSON-encoded).
    case data(Data)
    /// UUID attributes.
    case uuid(UUID)
    /// URI attributes.
    case uri(URL)
    /// A to-one relationship's destination.
    case object(ManagedObjectID)
    /// A to-many relationship's destinations, in order (insertion order when unordered).
    case objects(OrderedSet<ManagedObjectID>)

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a `Double` when it is numeric (integer, double, decimal, boolean).
    public var numericValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        case .decimal(let value): return NSDecimalNumber(decimal: value).doubleValue
        case .boolean(let value): return value ? 1 : 0
        default: return nil
        }
    }

    /// The destination IDs of a relationship value: one for a to-one, all for a to-many.
    public var objectIDs: [ManagedObjectID] {
        switch self {
        case .object(let id): return [id]
        case .objects(let ids): return Array(ids)
        default: return []
        }
    }
}

extension PropertyValue: CustomStringConvertible {
    /// A short, readable rendering used in errors, the CLI and logs.
    public var description: String {
        switch self {
        case .null: return "null"
        case .integer(let value): return String(value)
        case .double(let value): return String(value)
        case .decimal(let value): return "\(value)"
        case .string(let value): return value.debugDescription
        case .boolean(let value): return value ? "true" : "false"
        case .date(let value): return value.formatted(.iso8601)
        case .data(let value): return "<\(value.count) bytes>"
        case .uuid(let value): return value.uuidString
        case .uri(let value): return value.absoluteString
        case .object(let id): return id.uriRepresentation().absoluteString
        case .objects(let ids): return "[" + ids.map { $0.uriRepresentation().absoluteString }.joined(separator: ", ") + "]"
        }
    }
}

extension PropertyValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// An integer literal is `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean literal is `.boolean`.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
