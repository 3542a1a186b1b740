import Foundation

/// How one key of an entity is read in SQL.
enum SQLProperty {
    /// An attribute column.
    case column(String, SQLValueKind)
    /// A to-one: the foreign key column, its entity column, the destination.
    case toOne(column: String, entityColumn: String?, destination: EntityDescription)
    /// A to-many through the destination table's foreign key to us.
    case inverseForeignKey(table: String, column: String, destination: EntityDescription)
    /// A to-many through a join table: our key is in `near`, the destination's in `far`.
    case joinTable(table: String, near: String, far: String, destination: EntityDescription)
}

extension SQLTranslation {
    /// Follows a key path from an operand: to-ones become LEFT JOINs (one per path and
    /// scope), the first to-many starts a collection (a new scope), later keys extend it.
    /// A NULL on the way stays NULL, as in memory.
    mutating func follow(_ keys: [String], from start: SQLOperand) throws -> SQLOperand {
        var current = start
        // `address.city` names the column of the element `city` of the composite `address`.
        var keys = keys
        switch start {
        case .object(let object): keys = object.entity.joiningCompositeKeys(keys)
        case .collection(let collection):
            if case .object(let object) = collection.element { keys = object.entity.joiningCompositeKeys(keys) }
        default: break
        }
        for key in keys {
            switch current {
            case .scalar(let scalar):
                if scalar.isNullLiteral { return current }
                // Foundation's KVC: a plain value's `self` is the value.
                if key == "self" { continue }
                // Foundation's KVC: a string's `length` (UTF-16 code units).
                if key == "length", scalar.kind == .string {
                    current = stringLength(scalar)
                    continue
                }
                throw StrataError(.predicateEvaluation, "cannot read key \(input: key) of \(withArticle(scalar.kind.name)) value",
                                  context: .init { $0.key = key })
            case .list:
                throw SQLResidual(reason: "a key path on a literal collection")
            case .object(let object):
                current = try step(object, key)
            case .collection(var collection):
                collection.element = try stepElement(collection.element, key, scope: collection.scope)
                current = .collection(collection)
            }
        }
        return current
    }

    /// One key of a single object (outside a collection).
    private mutating func step(_ object: SQLObjectRef, _ key: String) throws -> SQLOperand {
        if let composite = object.entity.composite(named: key) {
            // A composite alone (`address == nil`): NULL when every element is, as in memory.
            let alias = try rowAlias(of: object)
            var tests: [String] = []
            for element in composite.storedElements {
                guard case .column(let column, _) = try property(element.name, of: object.entity) else {
                    throw SQLResidual(reason: "composite element without a column")
                }
                tests.append("\(alias).\(SnapshotSchema.quote(column)) IS NULL")
            }
            return .scalar(SQLScalar(sql: "(CASE WHEN \(tests.joined(separator: " AND ")) THEN NULL ELSE 1 END)", kind: .boolean))
        }
        switch try property(key, of: object.entity) {
        case .column(let column, let kind):
            return .scalar(SQLScalar(sql: "\(try rowAlias(of: object)).\(SnapshotSchema.quote(column))", kind: kind))
        case .toOne(let column, let entityColumn, let destination):
            return .object(toOne(from: try rowAlias(of: object), column: column, entityColumn: entityColumn, destination: destination))
        case .inverseForeignKey(let table, let column, let destination):
            let (scope, alias) = newScope(table: table, prefix: "c")
            scopes[scope].conditions.append("\(alias).\(SnapshotSchema.quote(column)) = \(object.pk)")
            return .collection(SQLCollection(scope: scope, element: .object(row(alias, destination, nullable: false)),
                                             nullWhen: object.nullable ? "\(object.pk) IS NULL" : nil))
        case .joinTable(let table, let near, let far, let destination):
            let (scope, link) = newScope(table: table, prefix: "l")
            let alias = newAlias("c", in: scope)
            scopes[scope].from.append(" JOIN \(SnapshotSchema.quote(destination.rootEntity.name)) AS \(alias) ON \(alias).\"_pk\" = \(link).\(SnapshotSchema.quote(far))")
            scopes[scope].conditions.append("\(link).\(SnapshotSchema.quote(near)) = \(object.pk)")
            return .collection(SQLCollection(scope: scope, element: .object(row(alias, destination, nullable: false)),
                                             nullWhen: object.nullable ? "\(object.pk) IS NULL" : nil))
        }
    }

    /// One key of a collection's element: the collection's elements become that key's
    /// values (flattened through further to-manys; a NULL element stays one NULL element).
    private mutating func stepElement(_ element: SQLOperand, _ key: String, scope: Int) throws -> SQLOperand {
        guard case .object(let object) = element else {
            if element.isNullLiteral { return element }
            if case .scalar = element, key == "self" { return element }
            if case .scalar(let scalar) = element, key == "length", scalar.kind == .string {
                return stringLength(scalar)
            }
            if case .scalar(let scalar) = element {
                throw StrataError(.predicateEvaluation, "cannot read key \(input: key) of \(withArticle(scalar.kind.name)) value",
                                  context: .init { $0.key = key })
            }
            throw SQLResidual(reason: "a key path on a nested collection")
        }
        if object.isConstant { throw SQLResidual(reason: "a key path on an object constant") }
        let join = object.nullable ? " LEFT JOIN " : " JOIN "
        switch try property(key, of: object.entity) {
        case .column, .toOne:
            return try step(object, key)
        case .inverseForeignKey(let table, let column, let destination):
            let alias = newAlias("c", in: scope)
            scopes[scope].from.append("\(join)\(SnapshotSchema.quote(table)) AS \(alias) ON \(alias).\(SnapshotSchema.quote(column)) = \(object.pk)")
            if object.nullable { scopes[scope].conditions.append("(\(object.pk) IS NULL OR \(alias).\"_pk\" IS NOT NULL)") }
            return .object(row(alias, destination, nullable: object.nullable))
        case .joinTable(let table, let near, let far, let destination):
            let link = newAlias("l", in: scope)
            let alias = newAlias("c", in: scope)
            scopes[scope].from.append("\(join)\(SnapshotSchema.quote(table)) AS \(link) ON \(link).\(SnapshotSchema.quote(near)) = \(object.pk)")
            scopes[scope].from.append("\(join)\(SnapshotSchema.quote(destination.rootEntity.name)) AS \(alias) ON \(alias).\"_pk\" = \(link).\(SnapshotSchema.quote(far))")
            if object.nullable { scopes[scope].conditions.append("(\(object.pk) IS NULL OR \(alias).\"_pk\" IS NOT NULL)") }
            return .object(row(alias, destination, nullable: object.nullable))
        }
    }

    /// The object that is the row `alias`.
    func row(_ alias: String, _ entity: EntityDescription, nullable: Bool) -> SQLObjectRef {
        SQLObjectRef(pk: "\(alias).\"_pk\"", entitySQL: schema.table(for: entity).entitySQL(alias: alias), entity: entity, alias: alias,
                     via: nil, nullable: nullable)
    }

    /// The destination of a to-one read from `alias`: its foreign key, not yet joined.
    private func toOne(from alias: String, column: String, entityColumn: String?, destination: EntityDescription) -> SQLObjectRef {
        let entitySQL = entityColumn.map { "\(alias).\(SnapshotSchema.quote($0))" } ?? String(destination.rootEntity.index)
        return SQLObjectRef(pk: "\(alias).\(SnapshotSchema.quote(column))", entitySQL: entitySQL, entity: destination,
                            alias: nil, via: (alias, column), nullable: true)
    }

    /// The alias of the object's row, LEFT JOINing it (once per scope and path) when the
    /// object is so far only a foreign key.
    mutating func rowAlias(of object: SQLObjectRef) throws -> String {
        if let alias = object.alias { return alias }
        guard let via = object.via, let scope = aliasScopes[via.alias] else {
            throw SQLResidual(reason: "a key path on an object constant")
        }
        let key = "\(via.alias).\(via.column)"
        if let joined = scopes[scope].joins[key] { return joined }
        let alias = newAlias("j", in: scope)
        scopes[scope].from.append(" LEFT JOIN \(SnapshotSchema.quote(object.entity.rootEntity.name)) AS \(alias) ON \(alias).\"_pk\" = \(object.pk)")
        scopes[scope].joins[key] = alias
        return alias
    }

    /// How `key` of `entity` is stored.
    /// - Throws: `.unknownKey` for a key the entity does not have; ``SQLResidual`` for a
    ///   transient property or a fetched property (no column).
    func property(_ key: String, of entity: EntityDescription) throws -> SQLProperty {
        guard let slot = entity.slot(forKey: key), slot < entity.slotKinds.count else {
            if entity.fetchedProperties.contains(where: { $0.name == key }) {
                throw SQLResidual(reason: "fetched property \(input: key)")
            }
            throw StrataError(.unknownKey, "entity \(entity.name) has no key \(input: key)",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        let storage = schema.storage(of: entity)
        guard slot < storage.count else { throw SQLResidual(reason: "no storage for \(input: key)") }
        switch (entity.slotKinds[slot], storage[slot]) {
        case (.attribute(let index), .column(let column)):
            return .column(column, SQLValueKind(entity.attributes[index].attributeType))
        case (_, .toOne(let column, let entityColumn, let destination)):
            return .toOne(column: column, entityColumn: entityColumn, destination: destination)
        case (.relationship(let index), .inverseForeignKey(let table, let column, let destination)):
            var inverseColumn = column
            if let inverse = entity.relationships[index].inverseSlot {
                let destinationStorage = schema.storage(of: destination)
                if inverse < destinationStorage.count, case .toOne(let real, _, _) = destinationStorage[inverse] {
                    inverseColumn = real
                }
            }
            return .inverseForeignKey(table: table, column: inverseColumn, destination: destination)
        case (.relationship(let index), .join(let join, let reversed)):
            let destination = schema.model.entities[entity.relationships[index].destinationIndex]
            return .joinTable(table: join.name, near: reversed ? "destination" : "source",
                              far: reversed ? "source" : "destination", destination: destination)
        default:
            throw SQLResidual(reason: "transient property \(input: key)")
        }
    }
}
