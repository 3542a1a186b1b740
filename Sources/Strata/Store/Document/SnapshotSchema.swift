import Foundation
import Synchronization

/// How a document's snapshot tables store the model (docs/FORMAT.md, "Snapshot tables").
///
/// - One table per root entity, named after it; sub-entities share it. System columns:
///   `_pk` (primary key) and, when the hierarchy has several entities, `_entity` (entity
///   index, see `strata_entity`). Layout 1 (documents of format 1) also gives every table
///   `_entity` and a `_version` column; see ``Layout``.
/// - A column per persistent attribute of every entity of the hierarchy, named after the
///   attribute (`Entity_attribute` when a sibling already uses the name).
/// - A to-one is a foreign-key column named after the relationship holding the
///   destination's `_pk`, plus `<name>_entity` when the destination hierarchy has several
///   entities.
/// - A to-many whose inverse is an unordered to-one is read through that foreign key; any
///   other persistent to-many (many-to-many, ordered, no inverse) lives in a join table
///   `<Entity>_<relationship>` with columns `source`, `destination` (and `*_entity`,
///   `position` where needed). A many-to-many is stored once, by the side whose
///   `Entity.relationship` sorts first; the other side reads it reversed.
struct SnapshotSchema {
    /// Which system columns the root tables carry; recorded by the document's
    /// `formatVersion` (docs/FORMAT.md, "Snapshot tables").
    enum Layout: Int, Sendable {
        /// Document format 1: `_entity` and `_version` on every root table.
        case entityAndVersionOnEveryTable = 1
        /// Document format 2: `_entity` only where the hierarchy has sub-entities, no
        /// `_version` (nothing read it: conflicts are found in the log).
        case entityWhereNeeded = 2

        /// The layout new documents get.
        static let current = Layout.entityWhereNeeded

        /// The layout of a document of `formatVersion`.
        init(documentFormat formatVersion: Int) {
            self = formatVersion <= 1 ? .entityAndVersionOnEveryTable : .entityWhereNeeded
        }
    }

    struct Table {
        let name: String
        let root: EntityDescription
        var columns: [Column]
        /// Whether rows record their entity in `_entity`; without it every row is `root`.
        let hasEntityColumn: Bool
        let hasVersionColumn: Bool

        /// The SQL for the entity index of the row `alias`: its `_entity` column, or the
        /// root's index when the table has none.
        func entitySQL(alias: String?) -> String {
            guard hasEntityColumn else { return String(root.index) }
            return alias.map { "\($0).\"_entity\"" } ?? "\"_entity\""
        }
    }

    struct Column {
        enum Kind {
            case attribute(AttributeType)
            case foreignKey(destinationRoot: EntityDescription)
            case foreignKeyEntity
        }
        let name: String
        let kind: Kind
        var isIndexed: Bool
    }

    struct JoinTable {
        let name: String
        /// The entity and relationship that own the table.
        let owner: EntityDescription
        let relationship: RelationshipDescription
        let sourceHasEntity: Bool
        let destinationHasEntity: Bool
        let isOrdered: Bool
    }

    /// Where one slot of one entity is stored.
    enum SlotStorage {
        case transient
        case column(String)
        case toOne(column: String, entityColumn: String?, destination: EntityDescription)
        /// A to-many read through the destination table's foreign key.
        case inverseForeignKey(table: String, column: String, destination: EntityDescription)
        /// A to-many in a join table; `reversed` when read from the non-owning side.
        case join(JoinTable, reversed: Bool)
    }

    let model: ManagedObjectModel
    let layout: Layout
    private(set) var tables: [Int: Table] = [:]          // by root entity index
    private(set) var joinTables: [String: JoinTable] = [:]
    private(set) var slots: [Int: [SlotStorage]] = [:]   // by entity index
    /// How a row of each root table is read and decoded, by root entity index
    /// (``SnapshotRowLayout``).
    private(set) var rowLayouts: [Int: SnapshotRowLayout] = [:]
    /// Names this schema's statements in a connection's shape cache
    /// (`SQLiteConnection.prepare(shape:sql:)`): unique per schema built, and per renamed
    /// copy, so a shape never finds another schema's SQL.
    private(set) var shapeOwner = SnapshotSchema.nextShapeOwner()

    /// Builds the schema of a model.
    /// - Throws: `.invalidModel` when an entity name collides with Strata's own tables.
    init(model: ManagedObjectModel, layout: Layout = .current) throws {
        self.model = model
        self.layout = layout
        for entity in model.entities where entity.name.lowercased().hasPrefix("strata_") {
            throw StrataError(.invalidModel, "Entity '\(entity.name)' collides with Strata's tables (names starting with strata_ are reserved).",
                              context: .init { $0.entity = entity.name })
        }
        for root in model.entities where root.superentity == nil {
            let oldLayout = layout == .entityAndVersionOnEveryTable
            var table = Table(name: root.name, root: root, columns: [],
                              hasEntityColumn: oldLayout || !root.subentities.isEmpty, hasVersionColumn: oldLayout)
            // The names stay reserved in every layout so that a model's columns are named
            // the same whichever layout its document has.
            var used: Set<String> = ["_pk", "_entity", "_version"]
            for entity in root.selfAndDescendants {
                var storage: [SlotStorage] = []
                for slot in 0..<entity.slotCount {
                    if let inherited = entity.superentity, slot < inherited.slotCount {
                        storage.append(slots[inherited.index]![slot])
                        continue
                    }
                    storage.append(Self.storage(for: slot, of: entity, table: &table, used: &used, model: model))
                }
                slots[entity.index] = storage
            }
            tables[root.index] = table
        }
        for (entityIndex, storage) in slots {
            for case .join(let join, false) in storage { joinTables[join.name] = join; _ = entityIndex }
        }
        resolveInverseForeignKeyColumns()
        var layouts: [Int: SnapshotRowLayout] = [:]
        for (rootIndex, table) in tables { layouts[rootIndex] = SnapshotRowLayout(table: table, schema: self) }
        rowLayouts = layouts
    }

    private static let shapeOwners = Atomic<Int>(0)

    private static func nextShapeOwner() -> Int {
        shapeOwners.add(1, ordering: .relaxed).newValue
    }

    /// Points each to-many read through an inverse foreign key at the column the inverse
    /// to-one really got: `Entity_name` when a sibling entity already used the name.
    private mutating func resolveInverseForeignKeyColumns() {
        for (entityIndex, storage) in slots {
            let entity = model.entities[entityIndex]
            for (slot, slotStorage) in storage.enumerated() {
                guard case .inverseForeignKey(let table, _, let destination) = slotStorage,
                      case .relationship(let index) = entity.slotKinds[slot],
                      let inverseSlot = entity.relationships[index].inverseSlot,
                      case .toOne(let column, _, _)? = slots[destination.index]?[safe: inverseSlot]
                else { continue }
                slots[entityIndex]?[slot] = .inverseForeignKey(table: table, column: column, destination: destination)
            }
        }
    }

    private static func storage(
        for slot: Int, of entity: EntityDescription, table: inout Table, used: inout Set<String>, model: ManagedObjectModel
    ) -> SlotStorage {
        func columnName(_ base: String) -> String {
            var name = base
            if used.contains(name) { name = "\(entity.name)_\(base)" }
            used.insert(name)
            return name
        }
        switch entity.slotKinds[slot] {
        case .attribute(let index):
            let attribute = entity.attributes[index]
            if attribute.isTransient { return .transient }
            let name = columnName(attribute.name)
            table.columns.append(Column(name: name, kind: .attribute(attribute.attributeType), isIndexed: attribute.isIndexed))
            return .column(name)
        case .relationship(let index):
            let relationship = entity.relationships[index]
            if relationship.isTransient { return .transient }
            let destination = model.entities[relationship.destinationIndex]
            let destinationRoot = destination.rootEntity
            let inverse = relationship.inverseSlot.flatMap { slot -> RelationshipDescription? in
                guard case .relationship(let i) = destination.slotKinds[slot] else { return nil }
                return destination.relationships[i]
            }
            if !relationship.isToMany {
                let name = columnName(relationship.name)
                table.columns.append(Column(name: name, kind: .foreignKey(destinationRoot: destinationRoot), isIndexed: true))
                var entityColumn: String?
                if !destinationRoot.subentities.isEmpty {
                    let column = columnName("\(relationship.name)_entity")
                    table.columns.append(Column(name: column, kind: .foreignKeyEntity, isIndexed: false))
                    entityColumn = column
                }
                return .toOne(column: name, entityColumn: entityColumn, destination: destination)
            }
            if let inverse, !inverse.isToMany, !relationship.isOrdered, !inverse.isTransient {
                return .inverseForeignKey(table: destinationRoot.name, column: inverse.name, destination: destination)
            }
            let ownName = "\(entity.name).\(relationship.name)"
            if let inverse, inverse.isToMany {
                let otherName = "\(destination.name).\(inverse.name)"
                if otherName < ownName {
                    let owner = destination
                    return .join(JoinTable(
                        name: "\(owner.name)_\(inverse.name)", owner: owner, relationship: inverse,
                        sourceHasEntity: !destinationRoot.subentities.isEmpty,
                        destinationHasEntity: !entity.rootEntity.subentities.isEmpty, isOrdered: inverse.isOrdered),
                        reversed: true)
                }
            }
            return .join(JoinTable(
                name: "\(entity.name)_\(relationship.name)", owner: entity, relationship: relationship,
                sourceHasEntity: !entity.rootEntity.subentities.isEmpty,
                destinationHasEntity: !destinationRoot.subentities.isEmpty, isOrdered: relationship.isOrdered),
                reversed: false)
        }
    }

    /// The storage of each slot of an entity.
    func storage(of entity: EntityDescription) -> [SlotStorage] { slots[entity.index] ?? [] }

    /// The table that holds an entity's rows.
    func table(for entity: EntityDescription) -> Table { tables[entity.rootEntity.index]! }

    /// `"name"`, with quotes doubled.
    static func quote(_ identifier: String) -> String {
        // Foundation's replacingOccurrences costs microseconds; names rarely hold quotes.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The statements that create every snapshot table and index.
    /// - Parameter uniqueConstraintIndexes: whether the uniqueness constraints' indexes are
    ///   UNIQUE (a new, empty document's are; a migration's stay non-unique until the next
    ///   writable open checks its records: ``reconcileUniquenessIndexes(on:)``).
    func createStatements(uniqueConstraintIndexes: Bool = false) -> [String] {
        var statements: [String] = []
        for table in tables.values.sorted(by: { $0.root.index < $1.root.index }) {
            var columns = ["\"_pk\" INTEGER PRIMARY KEY"]
            if table.hasEntityColumn { columns.append("\"_entity\" INTEGER NOT NULL") }
            if table.hasVersionColumn { columns.append("\"_version\" INTEGER NOT NULL DEFAULT 1") }
            for column in table.columns {
                let type: String = switch column.kind {
                case .attribute(let type): Self.sqlType(type)
                case .foreignKey, .foreignKeyEntity: "INTEGER"
                }
                columns.append("\(Self.quote(column.name)) \(type)")
            }
            statements.append("CREATE TABLE \(Self.quote(table.name)) (\(columns.joined(separator: ", ")))")
            for column in table.columns where column.isIndexed {
                statements.append("CREATE INDEX \(Self.quote("\(table.name)_\(column.name)_index")) ON \(Self.quote(table.name)) (\(Self.quote(column.name)))")
            }
        }
        for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
            // The key columns first: SQLite 3.40.0–3.41.0 (Debian 12's sqlite3) reports false
            // "NULL value in ..." integrity errors for WITHOUT ROWID tables whose primary key
            // columns are not declared in key order.
            var columns = ["\"source\" INTEGER NOT NULL", "\"destination\" INTEGER NOT NULL"]
            if join.sourceHasEntity { columns.append("\"source_entity\" INTEGER NOT NULL") }
            if join.destinationHasEntity { columns.append("\"destination_entity\" INTEGER NOT NULL") }
            if join.isOrdered { columns.append("\"position\" INTEGER NOT NULL") }
            statements.append("CREATE TABLE \(Self.quote(join.name)) (\(columns.joined(separator: ", ")), PRIMARY KEY (\"source\", \"destination\")) WITHOUT ROWID")
            statements.append("CREATE INDEX \(Self.quote("\(join.name)_destination_index")) ON \(Self.quote(join.name)) (\"destination\")")
        }
        statements += uniquenessIndexStatements(unique: uniqueConstraintIndexes)
        return statements
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type.valueKind {
        case .integer, .boolean: return "INTEGER"
        case .double, .date: return "REAL"
        case .decimal, .string, .uuid, .uri: return "TEXT"
        case .data: return "BLOB"
        }
    }
}

extension SnapshotSchema {
    /// The same schema with every table and join table named `prefix` + its name: where a
    /// migration writes the new tables while the old ones, of the same names, are read.
    func renamed(prefix: String) -> SnapshotSchema {
        var copy = self
        copy.shapeOwner = Self.nextShapeOwner()
        copy.tables = tables.mapValues { table in
            Table(name: prefix + table.name, root: table.root, columns: table.columns,
                  hasEntityColumn: table.hasEntityColumn, hasVersionColumn: table.hasVersionColumn)
        }
        func join(_ table: JoinTable) -> JoinTable {
            JoinTable(name: prefix + table.name, owner: table.owner, relationship: table.relationship,
                      sourceHasEntity: table.sourceHasEntity, destinationHasEntity: table.destinationHasEntity, isOrdered: table.isOrdered)
        }
        copy.joinTables = Dictionary(uniqueKeysWithValues: joinTables.values.map { (prefix + $0.name, join($0)) })
        copy.slots = slots.mapValues { storage in
            storage.map { slot in
                switch slot {
                case .inverseForeignKey(let table, let column, let destination):
                    return .inverseForeignKey(table: prefix + table, column: column, destination: destination)
                case .join(let table, let reversed): return .join(join(table), reversed: reversed)
                default: return slot
                }
            }
        }
        return copy
    }

    /// Each snapshot table whose columns are not those the document's format lays out
    /// (docs/FORMAT.md §11), as a sentence: a format 2 reader must not meet format 1
    /// tables, nor a column a damaged schema entry renamed. `strata-log verify` reports
    /// them; an open to write refuses the document (``DocumentWriteCheck``).
    func layoutProblems(_ connection: SQLiteConnection, formatVersion: Int) throws -> [String] {
        var problems: [String] = []
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            var expected = ["_pk"]
            if table.hasEntityColumn { expected.append("_entity") }
            if table.hasVersionColumn { expected.append("_version") }
            expected += table.columns.map(\.name)
            let actual = try connection.prepare("PRAGMA table_info(\(Self.quote(table.name)))").rows()
                .compactMap { row -> String? in if case .text(let name)? = row[safe: 1] { name } else { nil } }
            if actual != expected {
                problems.append("Snapshot table \(table.name) has columns \(actual.joined(separator: ", ")); document format \(formatVersion) lays out \(expected.joined(separator: ", ")).")
            }
        }
        return problems
    }
}
