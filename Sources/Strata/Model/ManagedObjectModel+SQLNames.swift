import Foundation

extension ManagedObjectModel {
    /// Problems with the names the model's snapshot tables would get: SQLite compares table
    /// and column names without regard to ASCII case, so `name` and `Name` are one column
    /// and `Tag` and `TAG` one table. Without this check such a model validated and then
    /// failed in `CREATE TABLE` with SQLite's `duplicate column name`.
    ///
    /// The names are those ``SnapshotSchema`` gives (the current layout's, which reserves
    /// the same names as every older one): one table per root entity holding the columns
    /// of every entity in its hierarchy, and one join table per many-to-many relationship.
    static func sqlNameProblems(_ model: ManagedObjectModel) -> [StrataError.Problem] {
        // Names SQLite's tokenizer or a terminal cannot take: refused here, not as SQLite's
        // `unrecognized token` when the table is made.
        var unusable: [StrataError.Problem] = []
        for entity in model.entities {
            if !isUsableName(entity.name) {
                unusable.append(.init(entityName: printable(entity.name), object: nil, key: nil, reason: unusableReason))
            }
            for name in entity.slotNames where !isUsableName(name) {
                unusable.append(.init(entityName: printable(entity.name), object: nil, key: printable(name), reason: unusableReason))
            }
        }
        if !unusable.isEmpty { return unusable }
        let schema: SnapshotSchema
        do {
            schema = try SnapshotSchema(model: model)
        } catch let error as StrataError {
            return [.init(entityName: error.context.entity ?? "(model)", object: nil, key: nil, reason: error.message)]
        } catch {
            return [.init(entityName: "(model)", object: nil, key: nil, reason: "\(error)")]
        }
        var problems: [StrataError.Problem] = []
        // Table names: entities' and join tables' share SQLite's one namespace.
        var tables: [String: (name: String, entity: String, what: String)] = [:]
        var candidates: [(name: String, entity: String, what: String)] = []
        for root in model.entities where root.superentity == nil {
            candidates.append((root.name, root.name, "the table of entity '\(root.name)'"))
        }
        for join in schema.joinTables.values.sorted(by: { $0.name < $1.name }) {
            candidates.append((join.name, join.owner.name,
                               "the join table of '\(join.owner.name).\(join.relationship.name)'"))
        }
        for candidate in candidates {
            let key = asciiLowercased(candidate.name)
            if let first = tables[key] {
                problems.append(.init(
                    entityName: candidate.entity, object: nil, key: nil,
                    reason: "table names '\(first.name)' (\(first.what)) and '\(candidate.name)' (\(candidate.what)) differ only by case; SQLite would see one table"))
            } else {
                tables[key] = candidate
            }
        }
        // Column names within each table, including the ones Strata reserves.
        for root in model.entities where root.superentity == nil {
            let table = schema.table(for: root)
            if table.columns.count + 3 > maxColumnsPerTable {
                problems.append(.init(
                    entityName: root.name, object: nil, key: nil,
                    reason: "entity '\(root.name)' and its sub-entities store \(table.columns.count) properties in one table; a document holds at most \(maxColumnsPerTable - 3) per entity hierarchy (SQLite's column limit): split the entity or move properties to a related entity"))
                continue
            }
            var columns: [String: String] = ["_pk": "_pk", "_entity": "_entity", "_version": "_version"]
            for column in table.columns {
                let key = asciiLowercased(column.name)
                if let first = columns[key] {
                    problems.append(.init(
                        entityName: root.name, object: nil, key: column.name,
                        reason: "names '\(first)' and '\(column.name)' differ only by case; SQLite would give table '\(table.name)' (entity '\(root.name)' and its sub-entities) two columns of one name"))
                } else {
                    columns[key] = column.name
                }
            }
        }
        return problems
    }

    /// The most columns one snapshot table may have: SQLite's default `SQLITE_MAX_COLUMN`,
    /// which also bounds a result set; Strata's own columns (`_pk`, `_entity`, `_version`)
    /// count too.
    static let maxColumnsPerTable = 2000

    private static let unusableReason = "the name contains NUL or another control character (U+0000–U+001F, U+007F), which no table or column name may hold"

    /// Whether a name holds no control character.
    static func isUsableName(_ name: String) -> Bool {
        !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A name fit for a message: control characters shown as `\u{…}`, at most 80 characters.
    static func printable(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars.prefix(80) {
            text += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return name.unicodeScalars.count > 80 ? text + "…" : text
    }

    /// SQLite folds only ASCII letters when it compares names: `É` and `é` stay distinct.
    private static func asciiLowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
