import Foundation

/// The static type of a translated value, from the model's attribute types or a constant.
enum SQLValueKind: Hashable {
    case integer, boolean, double, decimal, string, date, data, uuid, uri
    /// The literal NULL.
    case null

    /// Integer, boolean, double and decimal compare numerically with each other.
    var isNumber: Bool {
        switch self {
        case .integer, .boolean, .double, .decimal: return true
        default: return false
        }
    }

    /// The evaluator's name for the kind (`ModelValueRules.kindName`).
    var name: String { self == .null ? "null" : attributeType.valueKind.name }

    /// How an attribute of `type` is stored and compared.
    init(_ type: AttributeType) {
        switch type.valueKind {
        case .integer: self = .integer
        case .boolean: self = .boolean
        case .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .uri: self = .uri
        }
    }
}

/// A single translated value: SQL text and its kind.
struct SQLScalar {
    var sql: String
    var kind: SQLValueKind
    /// The constant, when the value is one (lets the translation fold or check it now).
    var constant: PropertyValue?

    var isNullLiteral: Bool { kind == .null }
}

/// An object: the SQL of its primary key and entity index, and how to reach its row.
struct SQLObjectRef {
    /// Its `_pk` (a column, a foreign key column or a parameter).
    var pk: String
    /// Its entity index (a column, a literal or a parameter).
    var entitySQL: String
    /// The entity keys are resolved on.
    var entity: EntityDescription
    /// The alias of the table row that is the object, when joined.
    var alias: String?
    /// The alias and foreign key it was reached through, to join it when a key is read.
    var via: (alias: String, column: String)?
    /// Whether the SQL may be NULL (a to-one that may be unset, a LEFT JOIN).
    var nullable: Bool
    /// A constant ID that names no row of this store (temporary, another store).
    var neverMatches = false
    /// Whether the object is a constant (no row to read keys from).
    var isConstant = false
}

/// A collection: the rows of a scope (a correlated subquery), one element each.
struct SQLCollection {
    /// The scope whose rows are the elements.
    var scope: Int
    /// The element of a row.
    var element: SQLOperand
    /// SQL that is true when the collection is NULL rather than empty (a to-one before the
    /// first to-many was NULL): `x IN collection` is then UNKNOWN.
    var nullWhen: String?
}

/// A translated expression.
indirect enum SQLOperand {
    case scalar(SQLScalar)
    case object(SQLObjectRef)
    case collection(SQLCollection)
    /// A literal collection `{…}`.
    case list([SQLOperand])

    /// SQL that is NULL exactly when a single value is NULL.
    var nullableSQL: String? {
        switch self {
        case .scalar(let scalar): return scalar.sql
        case .object(let object): return object.pk
        default: return nil
        }
    }

    var isNullLiteral: Bool {
        if case .scalar(let scalar) = self { return scalar.isNullLiteral }
        return false
    }

    /// The kind of a single value; nil for objects and collections.
    var kindIfScalar: SQLValueKind? {
        if case .scalar(let scalar) = self { return scalar.kind }
        return nil
    }
}

/// What SELF and SUBQUERY variables stand for while translating.
struct SQLEnvironment {
    var subject: SQLOperand
    var variables: [String: SQLOperand] = [:]
}

extension SQLTranslation {
    /// Translates an expression.
    mutating func operand(_ expression: FetchExpression, in environment: SQLEnvironment) throws -> SQLOperand {
        switch expression {
        case .constant(let value):
            return constant(value)
        case .collection(let items):
            return .list(try items.map { try operand($0, in: environment) })
        case .evaluatedObject:
            return environment.subject
        case .variable(let name):
            guard let bound = environment.variables[name] else {
                throw StrataError(.predicateEvaluation, "variable $\(name) has no value", context: .init { $0.variable = name })
            }
            return bound
        case .keyPath(let path, let base):
            let start = try operand(base, in: environment)
            return try follow(path.split(separator: ".").map(String.init), from: start)
        case .collectionOperator(let op, let collection, let key):
            return try aggregate(op, of: try operand(collection, in: environment), key: key)
        case .subquery(let collection, let variable, let predicate):
            return try subquery(try operand(collection, in: environment), variable: variable, predicate: predicate,
                                environment: environment)
        case .function(let function, let arguments):
            return try self.function(function, arguments, in: environment)
        case .conditional(let predicate, let then, let otherwise):
            return try conditional(predicate, then: then, else: otherwise, in: environment)
        case .index(let base, let index):
            return try subscripted(base, index, in: environment)
        }
    }

    /// A constant as a bound parameter (objects as their key and entity).
    mutating func constant(_ value: PropertyValue) -> SQLOperand {
        if PredicateValueRules.isNull(value) { return .scalar(SQLScalar(sql: "NULL", kind: .null, constant: .null)) }
        switch value {
        case .object(let id):
            let matches = !id.isTemporaryID && (storeTag.map { $0 == id.storeTag } ?? true)
            return .object(SQLObjectRef(
                pk: bind(.integer(id.primaryKey)), entitySQL: bind(.integer(Int64(id.entity.index))),
                entity: id.entity, alias: nil, via: nil, nullable: false, neverMatches: !matches, isConstant: true))
        case .objects(let ids):
            return .list(ids.map { constant(.object($0)) })
        default:
            let kind: SQLValueKind = switch value {
            case .integer: .integer
            case .boolean: .boolean
            case .double: .double
            case .decimal: .decimal
            case .string: .string
            case .date: .date
            case .data: .data
            case .uuid: .uuid
            case .uri: .uri
            default: .null
            }
            return .scalar(SQLScalar(sql: bind(SnapshotValueCoding.encode(value)), kind: kind, constant: value))
        }
    }

    /// Binds a string constant (after folding it, for `[c]`/`[d]` comparisons).
    mutating func bindText(_ text: String) -> String {
        bind(.text(text))
    }
}
