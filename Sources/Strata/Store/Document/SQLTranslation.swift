import Foundation

/// The mutable state of one translation: bindings, aliases and scopes.
struct SQLTranslation {
    let schema: SnapshotSchema
    let storeTag: UInt32?
    /// Parameter values; `?n` is `bindings[n - 1]`.
    var bindings: [SQLiteValue] = []
    var scopes: [SQLScope] = []
    /// The scope that owns each alias (joins through an alias go there).
    var aliasScopes: [String: Int] = [:]
    var aliasCounter = 0
    let rootEntity: EntityDescription

    /// The scope of the outer query (alias `t`).
    let rootScope = 0

    init(schema: SnapshotSchema, storeTag: UInt32?, entity: EntityDescription) {
        self.schema = schema
        self.storeTag = storeTag
        self.rootEntity = entity
        scopes = [SQLScope(from: ["\(SnapshotSchema.quote(schema.table(for: entity).name)) AS t"])]
        aliasScopes["t"] = 0
    }

    /// The environment of the outer query: SELF is the fetched row.
    var rootEnvironment: SQLEnvironment {
        SQLEnvironment(subject: .object(SQLObjectRef(
            pk: "t.\"_pk\"", entitySQL: schema.table(for: rootEntity).entitySQL(alias: "t"), entity: rootEntity, alias: "t", via: nil, nullable: false)))
    }

    /// Binds a value and returns its parameter (`?n`).
    mutating func bind(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?\(bindings.count)"
    }

    /// A fresh alias owned by `scope`.
    mutating func newAlias(_ prefix: String, in scope: Int) -> String {
        aliasCounter += 1
        let alias = "\(prefix)\(aliasCounter)"
        aliasScopes[alias] = scope
        return alias
    }

    /// A new, empty scope whose first table is `table AS alias`.
    mutating func newScope(table: String, prefix: String) -> (scope: Int, alias: String) {
        scopes.append(SQLScope(from: []))
        let scope = scopes.count - 1
        let alias = newAlias(prefix, in: scope)
        scopes[scope].from = ["\(SnapshotSchema.quote(table)) AS \(alias)"]
        return (scope, alias)
    }

    /// The scope's `FROM` text (tables and joins, without `FROM`).
    func renderFrom(_ scope: Int) -> String {
        scopes[scope].from.joined()
    }

    /// `SELECT what FROM … WHERE conditions AND extra` for a subquery scope.
    func renderSubquery(_ scope: Int, select what: String, extra: [String] = []) -> String {
        let conditions = scopes[scope].conditions + extra
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return "SELECT \(what) FROM \(renderFrom(scope))\(whereClause)"
    }
}
