import Foundation
import Testing
@testable import Strata

/// An Employee/Department/Project graph (many-to-many projects, manager self-relationship)
/// written to a real SQLite snapshot (SnapshotSchema's tables, SnapshotValueCoding values)
/// and kept in memory as predicate subjects, so SQL and the evaluator can be compared.
final class SQLTestDataset {
    struct Record {
        var entity: EntityDescription
        var values: [String: PropertyValue] = [:]
        var manager: Int64?
        var department: Int64?
        var projects: [Int64] = []
    }

    let model: ManagedObjectModel
    let schema: SnapshotSchema
    let scratch: SQLiteScratch
    let connection: SQLiteConnection
    static let storeTag: UInt32 = 1
    private(set) var records: [Int64: Record] = [:]
    let employee: EntityDescription
    let department: EntityDescription
    let project: EntityDescription

    static let firstNames = ["Ada", "ada", "ADA", "Émile", "E\u{301}mile", "emile", "Zoë", "", "O'Brien", "Ångström", "quinn", "Ümit",
                             "\u{212A}elvin", "kelvin", "q\u{301}uill", "\u{7F}del"]
    static let lastNames = ["Lovelace", "lovelace", "Müller", "Muller", "MÜLLER", "Quinn", "quinn", "x'; DROP TABLE \"Person\"; --",
                            "100%_sure*?", "Zed", "zed", "Çelik"]
    static let salaries: [Int64?] = [nil, 0, 1000, 5000, 5000, 52000, 52000, 100_000, -5, 9_007_199_254_740_993]
    static let ratings: [Double?] = [nil, 0, 1.5, -2.25, 4.75, 3, 0.125, 3]
    static let bonuses: [String?] = [nil, "0.1", "0.10", "-3.5", "1234.5678", "0", "100", "0.30000000000000001", "99999999999999999999.5", "1e-7"]
    static let dates: [Double?] = [nil, 0, 86_400.5, -1_000_000.25, 700_000_000, 700_000_000]
    static let badges: [UUID?] = [nil, UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"),
                                  UUID(uuidString: "00000000-0000-0000-0000-000000000001"), UUID(uuidString: "F0000000-0000-0000-0000-00000000000F")]
    static let homepages: [URL?] = [nil, URL(string: "https://example.com/a"), URL(string: "https://example.com/B"), URL(string: "mailto:x@y")]
    static let photos: [Data?] = [nil, Data(), Data([0]), Data([1, 2]), Data([255]), Data([1])]
    static let departmentNames = ["Sales", "sales", "Ré\u{301}search", "R&D'; DELETE FROM \"Department\"; --", "Engineering", "Sàles"]
    static let budgets: [String?] = [nil, "1000000", "2.5", "-7.25", "0.1"]
    static let projectNames = ["Engine", "engine", "Apollo", "Ünder", "Zeta"]

    /// Builds a random data set for `seed`.
    init(seed: UInt64, employees: Int = 24, departments: Int = 5, projects: Int = 5,
         layout: SnapshotSchema.Layout = .current) throws {
        model = ManagedObjectModel.employeesExample()
        schema = try SnapshotSchema(model: model, layout: layout)
        guard let employee = model.entitiesByName["Employee"], let department = model.entitiesByName["Department"],
              let project = model.entitiesByName["Project"] else { throw StrataError(.invalidModel, "example model changed") }
        self.employee = employee
        self.department = department
        self.project = project
        scratch = try SQLiteScratch()
        connection = try scratch.open()
        for statement in schema.createStatements() { try connection.execute(statement) }
        try SQLFunctions.register(on: connection)

        var random = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func decimal(_ text: String?) -> PropertyValue { text.flatMap { SQLFunctions.parseDecimal($0) }.map(PropertyValue.decimal) ?? .null }

        let departmentKeys = (0..<departments).map { Int64(1001 + $0) }
        let projectKeys = (0..<projects).map { Int64(2001 + $0) }
        for (index, key) in departmentKeys.enumerated() {
            var record = Record(entity: department)
            record.values["name"] = .string(Self.departmentNames[index % Self.departmentNames.count])
            record.values["budget"] = decimal(pick(Self.budgets))
            records[key] = record
        }
        for (index, key) in projectKeys.enumerated() {
            var record = Record(entity: project)
            record.values["name"] = .string(Self.projectNames[index % Self.projectNames.count])
            record.values["deadline"] = pick(Self.dates).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            records[key] = record
        }
        for index in 0..<employees {
            let key = Int64(1 + index)
            var record = Record(entity: employee)
            record.values["firstName"] = .string(pick(Self.firstNames))
            record.values["lastName"] = .string(pick(Self.lastNames))
            record.values["salary"] = pick(Self.salaries).map(PropertyValue.integer) ?? .null
            record.values["employeeID"] = random.next() % 4 == 0 ? .null : .integer(Int64(random.next() % 6) * 1000)
            record.values["startDate"] = pick(Self.dates).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            record.values["email"] = random.next() % 3 == 0 ? .null : .string(pick(["a@b", "ADA@EXAMPLE.COM", "zoë@x.org", ""]))
            record.values["active"] = pick([PropertyValue.null, .boolean(true), .boolean(false)])
            record.values["rating"] = pick(Self.ratings).map(PropertyValue.double) ?? .null
            record.values["bonus"] = decimal(pick(Self.bonuses))
            record.values["badge"] = pick(Self.badges).map(PropertyValue.uuid) ?? .null
            record.values["homepage"] = pick(Self.homepages).map(PropertyValue.uri) ?? .null
            record.values["photo"] = pick(Self.photos).map(PropertyValue.data) ?? .null
            record.values["notes"] = .null
            if index > 0, random.next() % 4 != 0 { record.manager = Int64(1 + Int(random.next() % UInt64(index))) }
            if random.next() % 5 != 0 { record.department = departmentKeys[Int(random.next() % UInt64(max(1, departments - 1)))] }
            record.projects = projectKeys.filter { _ in random.next() % 3 == 0 }
            records[key] = record
        }
        try insertAll()
    }

    /// The ID of a record.
    func id(_ key: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: records[key]?.entity ?? employee, storeTag: Self.storeTag, primaryKey: key)
    }

    /// The subject evaluated in memory for a record.
    func subject(_ key: Int64) -> GraphSubject { GraphSubject(dataset: self, key: key) }

    /// The keys of an entity's records (sub-entities included), in key order.
    func keys(of entity: EntityDescription) -> [Int64] {
        records.filter { $0.value.entity.isKind(of: entity) }.keys.sorted()
    }

    /// The records related through a to-many, in key order.
    func related(_ key: Int64, _ relationship: String) -> [Int64] {
        guard let record = records[key] else { return [] }
        switch relationship {
        case "directReports": return records.filter { $0.value.manager == key }.keys.sorted()
        case "employees": return records.filter { $0.value.department == key }.keys.sorted()
        case "members": return records.filter { $0.value.projects.contains(key) }.keys.sorted()
        case "projects": return record.projects
        default: return []
        }
    }

    private func insertAll() throws {
        try connection.transaction {
            for (key, record) in records.sorted(by: { $0.key < $1.key }) {
                let table = schema.table(for: record.entity)
                var columns = ["\"_pk\""]
                var values: [SQLiteValue] = [.integer(key)]
                if table.hasEntityColumn {
                    columns.append("\"_entity\"")
                    values.append(.integer(Int64(record.entity.index)))
                }
                let storage = schema.storage(of: record.entity)
                for (slot, name) in record.entity.slotNames.enumerated() {
                    switch storage[slot] {
                    case .column(let column):
                        columns.append(SnapshotSchema.quote(column))
                        values.append(SnapshotValueCoding.encode(record.values[name] ?? .null))
                    case .toOne(let column, let entityColumn, _):
                        let target = name == "manager" ? record.manager : record.department
                        columns.append(SnapshotSchema.quote(column))
                        values.append(target.map(SQLiteValue.integer) ?? .null)
                        if let entityColumn {
                            columns.append(SnapshotSchema.quote(entityColumn))
                            values.append(target.flatMap { records[$0] }.map { .integer(Int64($0.entity.index)) } ?? .null)
                        }
                    case .join(let join, false):
                        for project in record.projects {
                            var linkColumns = ["source", "destination"]
                            var linkValues: [SQLiteValue] = [.integer(key), .integer(project)]
                            if join.sourceHasEntity { linkColumns.append("source_entity"); linkValues.append(.integer(Int64(record.entity.index))) }
                            if join.destinationHasEntity { linkColumns.append("destination_entity"); linkValues.append(.integer(Int64(self.project.index))) }
                            let marks = Array(repeating: "?", count: linkValues.count).joined(separator: ", ")
                            try connection.prepare("INSERT INTO \(SnapshotSchema.quote(join.name)) (\(linkColumns.joined(separator: ", "))) VALUES (\(marks))")
                                .run(linkValues)
                        }
                    default: break
                    }
                }
                let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
                try connection.prepare("INSERT INTO \(SnapshotSchema.quote(table.name)) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))")
                    .run(values)
            }
        }
    }

    /// The value at a key path through to-ones (for sorting in memory).
    func value(_ keyPath: String, of key: Int64) -> PropertyValue {
        var current: Int64? = key
        let keys = keyPath.split(separator: ".").map(String.init)
        for (index, name) in keys.enumerated() {
            guard let at = current, let record = records[at] else { return .null }
            if index == keys.count - 1 { return record.values[name] ?? .null }
            current = name == "manager" ? record.manager : record.department
        }
        return .null
    }

    /// What the fetch returns when evaluated entirely in memory.
    func expected(_ request: StoreFetchRequest) throws -> [Int64] {
        var matches = try keys(of: request.entity).filter { key in
            guard request.includesSubentities || records[key]?.entity === request.entity else { return false }
            return try request.predicate?.evaluate(with: subject(key)) ?? true
        }
        matches = try sorted(matches, by: request.sortDescriptors)
        return window(matches, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    /// The keys in sort-descriptor order (NULL first ascending), ties by key.
    func sorted(_ keys: [Int64], by descriptors: [FetchSortDescriptor]) throws -> [Int64] {
        var failure: Error?
        let result = keys.sorted { a, b in
            for descriptor in descriptors {
                let x = value(descriptor.keyPath, of: a), y = value(descriptor.keyPath, of: b)
                let options: FetchComparison.Options = switch descriptor.comparison {
                case .binary: []
                case .caseInsensitive: .caseInsensitive
                case .localized: .caseDiacriticInsensitive
                }
                let order: Int
                switch (PredicateValueRules.isNull(x), PredicateValueRules.isNull(y)) {
                case (true, true): order = 0
                case (true, false): order = -1
                case (false, true): order = 1
                default:
                    do {
                        let folded = try PredicateValueRules.compare(x, y, options: options, equalityOnly: false, operatorName: "sort") ?? 0
                        // Strings that fold alike order binary (FetchSortDescriptor.compareValues).
                        order = folded != 0 || options.isEmpty ? folded
                            : try PredicateValueRules.compare(x, y, options: [], equalityOnly: false, operatorName: "sort") ?? 0
                    } catch {
                        failure = error
                        order = 0
                    }
                }
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return a < b
        }
        if let failure { throw failure }
        return result
    }

    /// What the plan returns: SQL, then the residual in memory, then the window.
    func actual(_ request: StoreFetchRequest, translator: SQLPredicateTranslator) throws -> (keys: [Int64], plan: SQLFetchPlan) {
        let plan = try translator.plan(for: request)
        var keys = try plan.select.rows(on: connection).map { row -> Int64 in
            guard case .integer(let key) = row.first else { throw StrataError(.corruptDocument, "no key in \(row)") }
            return key
        }
        if let residual = plan.residual {
            keys = try keys.filter { try residual.evaluate(with: subject($0)) }
        }
        if !plan.appliesWindow { keys = window(keys, offset: request.fetchOffset, limit: request.fetchLimit) }
        return (keys, plan)
    }

    func window(_ keys: [Int64], offset: Int, limit: Int) -> [Int64] {
        let start = min(keys.count, max(0, offset))
        let rest = keys[start...]
        return Array(limit > 0 ? rest.prefix(limit) : rest)
    }
}

/// A record of the data set as a predicate subject; relationships resolve to subjects.
struct GraphSubject: PredicateSubject {
    let dataset: SQLTestDataset
    let key: Int64

    func predicateValue(forKey name: String) throws -> PredicateResolved {
        guard let record = dataset.records[key] else { throw StrataError(.objectNotFound, "no record \(key)") }
        switch name {
        case "manager" where record.entity === dataset.employee:
            return .object(record.manager.map { dataset.subject($0) })
        case "department" where record.entity === dataset.employee:
            return .object(record.department.map { dataset.subject($0) })
        case "directReports" where record.entity === dataset.employee, "projects" where record.entity === dataset.employee,
             "employees" where record.entity === dataset.department, "members" where record.entity === dataset.project:
            return .objects(dataset.related(key, name).map { dataset.subject($0) })
        case "fullName" where record.entity === dataset.employee:
            guard case .string(let first)? = record.values["firstName"], case .string(let last)? = record.values["lastName"] else {
                return .value(.null)
            }
            return .value(.string("\(first) \(last)"))
        default:
            guard let value = record.values[name] else {
                throw StrataError(.unknownKey, "\(record.entity.name) has no key '\(name)'", context: .init { $0.key = name })
            }
            return .value(value)
        }
    }

    var predicateObjectID: ManagedObjectID? { dataset.id(key) }
}
