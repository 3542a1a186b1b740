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
        let schema: SnapshotSchema
        do {
            schema = try SnapshotSchema(model: model)
        } catch let error as StrataError {
            return [.init(entityName: error.context["entity"] ?? "(model)", object: nil, key: nil, reason: error.message)]
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

    /// SQLite folds only ASCII letters when it compares names: `É` and `é` stay distinct.
    private static func asciiLowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
