import Foundation
import OrderedCollections

/// Reads records' values from the snapshot tables a batch at a time: one statement for the
/// rows of each table the batch touches, then one statement per to-many relationship for
/// the whole batch — never a statement per record (docs/ARCHITECTURE.md, "Reads: one pass
/// from SQL to objects").
///
/// Every statement is prepared once per connection and found again by its shape
/// (`SQLiteConnection.prepare(shape:sql:)`): a read builds no SQL text. A batch of keys is
/// bound as one JSON array read with `json_each`, so the statement is the same whatever
/// the batch's size.
///
/// ```swift
/// let reader = SnapshotRowReader(connection: connection, schema: schema, storeTag: tag)
/// let rows = try reader.values(of: ids)          // [[PropertyValue]?], in the order of ids
/// ```
///
/// It reads the snapshot only: the overlay of uncompacted segments wins over what it
/// returns (`DocumentState.currentValues(_:)`).
struct SnapshotRowReader {
    let connection: SQLiteConnection
    let schema: SnapshotSchema
    let storeTag: UInt32

    /// The statement builders, one shape kind each.
    private enum Kind: Int {
        case rowByKey = 1, rowsByKeys, membersByKey, membersByKeys
    }

    private func shape(_ kind: Kind, _ first: Int, _ second: Int = 0) -> SQLiteStatementShape {
        SQLiteStatementShape(kind: kind.rawValue, owner: schema.shapeOwner, first: first, second: second)
    }

    // MARK: Rows by key

    /// The snapshot values of each record, in the order of `ids`: nil where the table has
    /// no row of that key, or has one of another entity.
    /// - Throws: `.corruptDocument` naming the column when a stored value does not fit its
    ///   attribute; SQLite errors.
    /// - Complexity: one statement per root table among the IDs, plus one per persistent
    ///   to-many relationship of their entities.
    func values(of ids: [ManagedObjectID]) throws -> [[PropertyValue]?] {
        if ids.count == 1 { return [try value(of: ids[0])] }
        // IDs of another tag (as a record read by ID always was, its related IDs carry the
        // tag it was asked with): one at a time.
        if ids.contains(where: { $0.storeTag != storeTag }) { return try ids.map { try value(of: $0) } }
        var rows = [[PropertyValue]?](repeating: nil, count: ids.count)
        guard !ids.isEmpty else { return rows }
        var positionsByRoot: [Int: [Int]] = [:]
        for (position, id) in ids.enumerated() {
            positionsByRoot[id.entity.rootEntityIndex, default: []].append(position)
        }
        for (rootIndex, positions) in positionsByRoot {
            try readRows(root: rootIndex, positions: positions, of: ids, into: &rows)
        }
        try fillToManys(&rows, of: ids)
        return rows
    }

    /// One record's snapshot values: the batch's statements with one key, and nothing to
    /// group (saves look records up one at a time).
    func value(of id: ManagedObjectID) throws -> [PropertyValue]? {
        guard id.storeTag == storeTag else {
            return try SnapshotRowReader(connection: connection, schema: schema, storeTag: id.storeTag).value(of: id)
        }
        let entity = id.entity
        let rootIndex = entity.rootEntityIndex
        guard let layout = schema.rowLayouts[rootIndex], let decoder = layout.decoders[entity.index] else { return nil }
        let statement = try connection.prepare(shape: shape(.rowByKey, rootIndex)) {
            Self.selectRows(layout, table: schema.table(for: entity)) + " WHERE \"_pk\" = ?1"
        }
        defer { statement.resetQuietly() }
        try statement.bind(.integer(id.primaryKey), at: 1)
        // A row of another entity of the hierarchy is not this record.
        guard try statement.step() == .row, statement.int64(at: 1) == Int64(entity.index) else { return nil }
        var scopes = ObjectIDScopeCache()
        var row = try decodeColumns(statement, from: 2, decoder, scopes: &scopes)
        statement.resetQuietly()
        for slot in decoder.toManySlots {
            var defining = entity
            while let parent = defining.superentity, slot < parent.slotCount { defining = parent }
            let members = try memberLists(of: defining, slot: slot, keys: [id.primaryKey])
            row[slot] = .objects(OrderedSet(members[id.primaryKey] ?? []))
        }
        return row
    }

    /// `SELECT "_pk", <entity>, <columns> FROM "<table>"`: the start of every row statement.
    private static func selectRows(_ layout: SnapshotRowLayout, table: SnapshotSchema.Table) -> String {
        let list = layout.columns.isEmpty ? "" : ", " + layout.selectList(alias: nil)
        return "SELECT \"_pk\", \(table.entitySQL(alias: nil))\(list) FROM \(SnapshotSchema.quote(table.name))"
    }

    private func readRows(root rootIndex: Int, positions: [Int], of ids: [ManagedObjectID],
                          into rows: inout [[PropertyValue]?]) throws {
        let root = schema.model.entities[rootIndex]
        let table = schema.table(for: root)
        guard let layout = schema.rowLayouts[rootIndex] else { return }
        let statement: SQLiteStatement
        if positions.count == 1 {
            statement = try connection.prepare(shape: shape(.rowByKey, rootIndex)) {
                Self.selectRows(layout, table: table) + " WHERE \"_pk\" = ?1"
            }
            try statement.bind(.integer(ids[positions[0]].primaryKey), at: 1)
        } else {
            statement = try connection.prepare(shape: shape(.rowsByKeys, rootIndex)) {
                Self.selectRows(layout, table: table) + " WHERE \"_pk\" IN (SELECT value FROM json_each(?1))"
            }
            try statement.bind(.text(Self.jsonArray(positions.lazy.map { ids[$0].primaryKey })), at: 1)
        }
        defer { statement.resetQuietly() }
        var scopes = ObjectIDScopeCache()
        var positionsByKey: [Int64: [Int]] = [:]
        positionsByKey.reserveCapacity(positions.count)
        for position in positions { positionsByKey[ids[position].primaryKey, default: []].append(position) }
        while try statement.step() == .row {
            let key = statement.int64(at: 0)
            let entityIndex = Int(statement.int64(at: 1))
            for position in positionsByKey[key] ?? [] {
                let entity = ids[position].entity
                // A row of another entity of the hierarchy is not this record.
                guard entity.index == entityIndex, let decoder = layout.decoders[entityIndex] else { continue }
                rows[position] = try decodeColumns(statement, from: 2, decoder, scopes: &scopes)
            }
        }
    }

    // MARK: Decoding

    /// A row's attributes and to-ones from the statement's current row, whose selected
    /// columns (``SnapshotRowLayout/columns``) start at `offset`; its persistent to-manys
    /// are empty until ``fillToManys(_:of:)``.
    /// - Throws: `.corruptDocument` naming the column when a value does not fit.
    /// `scopes` is the caller's, kept across rows: an ID's scope is looked up once per
    /// entity, not once per row.
    func decodeColumns(_ statement: SQLiteStatement, from offset: Int, _ decoder: SnapshotRowLayout.EntityDecoder,
                       scopes: inout ObjectIDScopeCache) throws -> [PropertyValue] {
        var values = decoder.template
        for column in decoder.columns {
            guard let value = try decode(column, statement, from: offset, scopes: &scopes) else { continue }
            values[column.slot] = value
        }
        return values
    }

    /// One slot's value from the statement's current row; nil when its column is NULL
    /// (the slot keeps the template's value).
    /// - Throws: `.corruptDocument` naming the column when a value does not fit.
    func decode(_ column: SnapshotRowLayout.SlotColumn, _ statement: SQLiteStatement, from offset: Int,
                scopes: inout ObjectIDScopeCache) throws -> PropertyValue? {
        switch column {
        case .attribute(_, let position, let type, let name):
            let raw = statement.value(at: offset + position)
            if case .null = raw { return nil }
            return try SnapshotValueCoding.decode(raw, as: type, column: name)
        case .toOne(_, let position, let entityPosition, let root):
            guard !statement.isNull(at: offset + position) else { return nil }
            let key = statement.int64(at: offset + position)
            var target = root
            if let entityPosition, !statement.isNull(at: offset + entityPosition),
               let entity = schema.model.entities[safe: Int(statement.int64(at: offset + entityPosition))] {
                target = entity
            }
            return .object(scopes.id(target, storeTag: storeTag, primaryKey: key))
        }
    }

    // MARK: To-many members

    /// Fills the persistent to-many slots of every row read: one statement per
    /// relationship (per where it is stored) for all the rows that have it.
    func fillToManys(_ rows: inout [[PropertyValue]?], of ids: [ManagedObjectID]) throws {
        struct Need {
            var slot: Int
            var definingEntity: EntityDescription
            var positions: [Int] = []
        }
        var needs: [SQLiteStatementShape: Need] = [:]
        // Per entity, once: its to-many slots and where each is defined.
        var toManysByEntity: [Int: [(slot: Int, defining: EntityDescription, shape: SQLiteStatementShape)]] = [:]
        for (position, id) in ids.enumerated() where rows[position] != nil {
            let entity = id.entity
            let toManys: [(slot: Int, defining: EntityDescription, shape: SQLiteStatementShape)]
            if let known = toManysByEntity[entity.index] {
                toManys = known
            } else {
                let slots = schema.rowLayouts[entity.rootEntityIndex]?.decoders[entity.index]?.toManySlots ?? []
                toManys = slots.map { slot in
                    // An inherited slot is stored where it is defined: one statement serves
                    // the whole hierarchy.
                    var defining = entity
                    while let parent = defining.superentity, slot < parent.slotCount { defining = parent }
                    return (slot, defining, shape(.membersByKeys, defining.index, slot))
                }
                toManysByEntity[entity.index] = toManys
            }
            for toMany in toManys {
                needs[toMany.shape, default: Need(slot: toMany.slot, definingEntity: toMany.defining)].positions.append(position)
            }
        }
        for need in needs.values {
            let keys = need.positions.map { ids[$0].primaryKey }
            let members = try memberLists(of: need.definingEntity, slot: need.slot, keys: keys)
            for position in need.positions {
                rows[position]?[need.slot] = .objects(OrderedSet(members[ids[position].primaryKey] ?? []))
            }
        }
    }

    /// The members of one to-many of the records with `keys`, by key: in position order for
    /// an ordered relationship read from its owning side, in ID order otherwise (as every
    /// read has always returned them).
    private func memberLists(of entity: EntityDescription, slot: Int, keys: [Int64]) throws -> [Int64: [ManagedObjectID]] {
        let single = keys.count == 1
        let kind: Kind = single ? .membersByKey : .membersByKeys
        let condition = single ? "= ?1" : "IN (SELECT value FROM json_each(?1))"
        var members: [Int64: [ManagedObjectID]] = [:]
        var scopes = ObjectIDScopeCache()
        let statement: SQLiteStatement
        let fallback: EntityDescription?
        let sorts: Bool
        switch schema.storage(of: entity)[slot] {
        case .inverseForeignKey(let tableName, let column, let destination):
            statement = try connection.prepare(shape: shape(kind, entity.index, slot)) {
                let entitySQL = schema.table(for: destination).entitySQL(alias: nil)
                let key = SnapshotSchema.quote(column)
                return "SELECT \(key), \"_pk\", \(entitySQL) FROM \(SnapshotSchema.quote(tableName)) WHERE \(key) \(condition)"
            }
            fallback = nil
            sorts = true
        case .join(let join, let reversed):
            let far = reversed ? "source" : "destination"
            let farHasEntity = reversed ? join.sourceHasEntity : join.destinationHasEntity
            statement = try connection.prepare(shape: shape(kind, entity.index, slot)) {
                let near = reversed ? "destination" : "source"
                let order = join.isOrdered && !reversed ? "\"position\"" : "\"\(far)\""
                let entityColumn = farHasEntity ? ", \"\(far)_entity\"" : ""
                return "SELECT \"\(near)\", \"\(far)\"\(entityColumn) FROM \(SnapshotSchema.quote(join.name)) WHERE \"\(near)\" \(condition) ORDER BY \"\(near)\", \(order)"
            }
            fallback = farHasEntity ? nil : (reversed ? join.owner.rootEntity : schema.model.entities[join.relationship.destinationIndex].rootEntity)
            sorts = !(join.isOrdered && !reversed)
        default:
            return [:]
        }
        defer { statement.resetQuietly() }
        try statement.bind(single ? .integer(keys[0]) : .text(Self.jsonArray(keys)), at: 1)
        let hasEntityColumn = statement.columnCount > 2
        while try statement.step() == .row {
            let owner = statement.int64(at: 0)
            var memberEntity = fallback
            if hasEntityColumn, !statement.isNull(at: 2) {
                memberEntity = schema.model.entities[safe: Int(statement.int64(at: 2))]
            }
            guard let memberEntity, !statement.isNull(at: 1) else { continue }
            members[owner, default: []].append(scopes.id(memberEntity, storeTag: storeTag, primaryKey: statement.int64(at: 1)))
        }
        if sorts {
            for index in members.indices { members.values[index].sort() }
        }
        return members
    }

    /// `[1,2,3]`: keys bound as one parameter, read back by `json_each`.
    static func jsonArray(_ keys: some Sequence<Int64>) -> String {
        var text = "["
        var first = true
        for key in keys {
            if !first { text += "," }
            text += String(key)
            first = false
        }
        return text + "]"
    }
}
