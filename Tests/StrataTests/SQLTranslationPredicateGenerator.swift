import Foundation
@testable import Strata

/// Random, well-typed predicates and fetch requests over the example model, for the
/// differential test of the SQL translation against the in-memory evaluator.
struct SQLPredicateGenerator {
    var random: SeededGenerator
    let dataset: SQLTestDataset

    static let attributes: [String: [(String, SQLValueKind)]] = [
        "Employee": [("firstName", .string), ("lastName", .string), ("salary", .integer), ("employeeID", .integer),
                     ("startDate", .date), ("email", .string), ("active", .boolean), ("rating", .double),
                     ("bonus", .decimal), ("badge", .uuid), ("homepage", .uri), ("photo", .data)],
        "Department": [("name", .string), ("budget", .decimal)],
        "Project": [("name", .string), ("deadline", .date)],
    ]
    static let toOnes: [String: [(String, String)]] = [
        "Employee": [("manager", "Employee"), ("department", "Department")],
    ]
    static let toManys: [String: [(String, String)]] = [
        "Employee": [("projects", "Project"), ("directReports", "Employee"), ("projects.members", "Employee"),
                     ("department.employees", "Employee"), ("manager.directReports", "Employee"), ("directReports.projects", "Project")],
        "Department": [("employees", "Employee"), ("employees.projects", "Project"),
                       ("employees.manager.directReports", "Employee"), ("employees.manager", "Employee")],
        "Project": [("members", "Employee"), ("members.department", "Department"), ("members.directReports", "Employee")],
    ]
    static let sortKeys: [String: [String]] = [
        "Employee": ["lastName", "firstName", "salary", "rating", "bonus", "startDate", "active", "badge", "photo",
                     "homepage", "manager.lastName", "department.name", "department.budget", "manager.salary", "email"],
        "Department": ["name", "budget"],
        "Project": ["name", "deadline"],
    ]
    /// Whether comparisons of expressions are generated (SQLTranslationExpressionGenerator).
    static let expressions = true
    static let fragments = ["a", "A", "é", "e", "Mü", "mu", "ll", "", "'", "%", "ne", "Ü", "E\u{301}", "ada", "s"]
    static let likePatterns = ["*a*", "A*", "?da", "*e", "M*ller", "*\\**", "*'*", "%*", "??", "*", "*ü*", "s?les"]
    static let regexes = ["A.*", "[a-z]+", ".*e", "ada", "Q.*|Z.*", ".*", "M.ller", "\\w+", "[^a]*", "(Sales|Zeta)"]

    init(seed: UInt64, dataset: SQLTestDataset) {
        random = SeededGenerator(seed: seed ^ 0x5EED)
        self.dataset = dataset
    }

    mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(max(1, bound))) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[int(values.count)] }

    /// A random fetch request.
    mutating func request() -> StoreFetchRequest {
        let name = pick(["Employee", "Employee", "Employee", "Department", "Project"])
        let entity = dataset.model.entitiesByName[name] ?? dataset.employee
        var sorts: [FetchSortDescriptor] = []
        for _ in 0..<int(3) {
            sorts.append(FetchSortDescriptor(pick(Self.sortKeys[name] ?? []), ascending: chance(50),
                                             comparison: pick([.binary, .caseInsensitive, .localized])))
        }
        return StoreFetchRequest(entity: entity, predicate: predicate(name, depth: 0), sortDescriptors: sorts,
                                 fetchLimit: chance(50) ? 0 : 1 + int(6), fetchOffset: chance(50) ? 0 : 1 + int(5))
    }

    /// A predicate over `entity`, nesting NOT/AND/OR up to three levels.
    mutating func predicate(_ entity: String, depth: Int, base: FetchExpression = .evaluatedObject) -> FetchPredicate {
        if depth < 3, chance(35) {
            switch int(7) {
            case 0: return .not(predicate(entity, depth: depth + 1, base: base))
            case 1, 2, 3: return .and((0..<(1 + int(3))).map { _ in predicate(entity, depth: depth + 1, base: base) })
            case 4, 5: return .or((0..<(1 + int(3))).map { _ in predicate(entity, depth: depth + 1, base: base) })
            default: return .constant(chance(50))
            }
        }
        return .comparison(comparison(entity, base: base, allowCollections: base == .evaluatedObject))
    }

    /// One comparison of some form.
    mutating func comparison(_ entity: String, base: FetchExpression, allowCollections: Bool) -> FetchComparison {
        let form = Self.expressions && chance(25) ? -1 : allowCollections ? int(14) : int(6)
        switch form {
        case -1:
            return expressionComparison(entity, base: base)
        case 0, 1, 2:
            let (path, kind) = scalarPath(entity)
            return test(.keyPath(path, on: base), kind)
        case 3:
            let (path, kind) = scalarPath(entity)
            let other = Self.attributes[entity]?.filter { $0.1 == kind || ($0.1.isNumber && kind.isNumber) } ?? []
            guard let partner = other.isEmpty ? nil : pick(other) else { return test(.keyPath(path, on: base), kind) }
            return FetchComparison(.keyPath(path, on: base), pick([.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo]),
                                   .keyPath(partner.0, on: base), options: kind == .string ? options() : [])
        case 4:
            return objectComparison(entity, base: base)
        case 5:
            // A quantifier on a single value.
            let (path, kind) = scalarPath(entity)
            var comparison = test(.keyPath(path, on: base), kind)
            comparison.modifier = pick([.any, .all, .none])
            return comparison
        case 6, 7, 8:
            guard let (path, element) = toMany(entity) else { return comparison(entity, base: base, allowCollections: false) }
            if chance(20) {
                let id = object(of: element)
                return FetchComparison(.keyPath(path), .equalTo, .constant(id), modifier: pick([.any, .all, .none]))
            }
            let (key, kind) = scalarPath(element)
            var comparison = test(.keyPath("\(path).\(key)"), kind)
            comparison.modifier = pick([.any, .all, .none])
            return comparison
        case 9, 10:
            guard let (path, element) = toMany(entity) else { return comparison(entity, base: base, allowCollections: false) }
            let op = pick(FetchCollectionOperator.allCases)
            if op == .count {
                return FetchComparison(.collectionOperator(.count, of: .keyPath(path), key: nil),
                                       pick([.equalTo, .greaterThan, .lessThanOrEqualTo, .notEqualTo]), .constant(.integer(Int64(int(4)))))
            }
            let candidates = (Self.attributes[element] ?? []).filter { op == .min || op == .max || $0.1.isNumber }
            guard !candidates.isEmpty else {
                return FetchComparison(.collectionOperator(.count, of: .keyPath(path), key: nil), .greaterThan, .constant(.integer(1)))
            }
            let (key, kind) = pick(candidates)
            let resultKind: SQLValueKind = op == .avg ? .double : (op == .sum && kind == .boolean ? .integer : kind)
            return test(.collectionOperator(op, of: .keyPath(path), key: key), resultKind)
        case 11:
            guard let (path, element) = toMany(entity) else { return comparison(entity, base: base, allowCollections: false) }
            let inner = predicate(element, depth: 2, base: chance(50) ? .variable("x") : .evaluatedObject)
            return FetchComparison(.collectionOperator(.count, of: .subquery(collection: .keyPath(path), variable: "x", predicate: inner), key: nil),
                                   pick([.greaterThan, .equalTo, .lessThan]), .constant(.integer(Int64(int(3)))))
        case 12:
            guard let (path, element) = toMany(entity) else { return comparison(entity, base: base, allowCollections: false) }
            if chance(30) {
                return FetchComparison(.constant(object(of: element)), .in, .keyPath(path))
            }
            let (key, kind) = scalarPath(element)
            if chance(30), let mine = (Self.attributes[entity] ?? []).first(where: { $0.1 == kind }) {
                return FetchComparison(.keyPath(mine.0), .in, .keyPath("\(path).\(key)"), options: kind == .string ? options() : [])
            }
            if chance(50) {
                return FetchComparison(.keyPath("\(path).\(key)"), .contains, .constant(constant(kind)), options: kind == .string ? options() : [])
            }
            return FetchComparison(.constant(constant(kind)), .in, .keyPath("\(path).\(key)"), options: kind == .string ? options() : [])
        default:
            if entity == "Employee" {
                // A transient key: residual, evaluated in memory.
                return FetchComparison(.keyPath("fullName"), pick([.beginsWith, .contains, .equalTo]), .constant(.string(pick(Self.fragments))),
                                       options: options())
            }
            let (path, kind) = scalarPath(entity)
            return test(.keyPath(path, on: base), kind)
        }
    }

    /// `lhs op value` for a value of `kind`: plain, NULL tests, BETWEEN, IN, string operators.
    mutating func test(_ lhs: FetchExpression, _ kind: SQLValueKind) -> FetchComparison {
        let stringOptions = kind == .string ? options() : []
        switch int(10) {
        case 0:
            return chance(50)
                ? FetchComparison(lhs, pick([.equalTo, .notEqualTo]), .constant(.null))
                : FetchComparison(.constant(.null), pick([.equalTo, .notEqualTo]), lhs)
        case 1:
            var bounds = [constant(kind), constant(kind)]
            if chance(70) {
                bounds.sort { a, b in
                    let order = (try? PredicateValueRules.compare(a, b, options: [], equalityOnly: false, operatorName: "")) ?? nil
                    return (order ?? 0) < 0
                }
            }
            return FetchComparison(lhs, .between, .collection(bounds.map(FetchExpression.constant)), options: stringOptions)
        case 2:
            let items = (0..<int(4)).map { _ in FetchExpression.constant(constant(kind)) }
            return FetchComparison(lhs, .in, .collection(items), options: stringOptions)
        case 3 where kind == .string, 4 where kind == .string:
            let op: FetchComparison.Operator = pick([.beginsWith, .endsWith, .contains, .like, .matches])
            let pattern: String = switch op {
            case .like: pick(Self.likePatterns)
            case .matches: pick(Self.regexes)
            default: pick(Self.fragments)
            }
            return FetchComparison(lhs, op, .constant(.string(pattern)), options: options())
        default:
            return FetchComparison(lhs, pick([.equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo]),
                                   .constant(constant(kind)), options: stringOptions)
        }
    }

    mutating func options() -> FetchComparison.Options {
        pick([[], [], .caseInsensitive, .diacriticInsensitive, .caseDiacriticInsensitive])
    }

    /// Object identity: to-ones and SELF against IDs (of the right entity or not), lists.
    mutating func objectComparison(_ entity: String, base: FetchExpression) -> FetchComparison {
        let toOnes = Self.toOnes[entity] ?? []
        if toOnes.isEmpty || chance(30) {
            if chance(50) {
                return FetchComparison(base, pick([.equalTo, .notEqualTo]), .constant(object(of: entity)))
            }
            return FetchComparison(base, .in, .collection((0..<int(4)).map { _ in .constant(object(of: entity)) }))
        }
        let (name, destination) = pick(toOnes)
        switch int(4) {
        case 0: return FetchComparison(.keyPath(name, on: base), .in, .collection((0..<int(4)).map { _ in .constant(object(of: destination)) }))
        case 1: return FetchComparison(.keyPath(name, on: base), pick([.equalTo, .notEqualTo]), .constant(.null))
        case 2 where name == "manager": return FetchComparison(.keyPath(name, on: base), pick([.equalTo, .notEqualTo]), base)
        default: return FetchComparison(.keyPath(name, on: base), pick([.equalTo, .notEqualTo]), .constant(object(of: destination)))
        }
    }

    /// A record ID, usually of `entity`, sometimes of another entity or from another store.
    mutating func object(of entity: String) -> PropertyValue {
        let target = chance(85) ? (dataset.model.entitiesByName[entity] ?? dataset.employee)
            : pick([dataset.employee, dataset.department, dataset.project])
        let keys = dataset.keys(of: target)
        guard !keys.isEmpty else { return .null }
        let key = pick(keys)
        if chance(5) { return .object(ManagedObjectID(entity: target, storeTag: 99, primaryKey: key)) }
        return .object(dataset.id(key))
    }

    /// An attribute path from `entity`, sometimes through one or two to-ones.
    mutating func scalarPath(_ entity: String, hops: Int = 0) -> (String, SQLValueKind) {
        if hops < 2, let toOnes = Self.toOnes[entity], chance(25) {
            let (name, destination) = pick(toOnes)
            let (rest, kind) = scalarPath(destination, hops: hops + 1)
            return ("\(name).\(rest)", kind)
        }
        return pick(Self.attributes[entity] ?? [("name", .string)])
    }

    mutating func toMany(_ entity: String) -> (String, String)? {
        guard let paths = Self.toManys[entity], !paths.isEmpty else { return nil }
        return pick(paths)
    }

    /// A constant for a value of `kind`: values from the data set (so equality hits), other
    /// numeric kinds for numbers, strings for UUIDs and URIs, NULL now and then.
    mutating func constant(_ kind: SQLValueKind) -> PropertyValue {
        if chance(7) { return .null }
        func decimal(_ text: String) -> PropertyValue { SQLFunctions.parseDecimal(text).map(PropertyValue.decimal) ?? .null }
        switch kind {
        case .string:
            return .string(pick(SQLTestDataset.firstNames + SQLTestDataset.lastNames + SQLTestDataset.departmentNames
                                + SQLTestDataset.projectNames + Self.fragments))
        case .integer, .boolean, .double, .decimal:
            switch int(6) {
            case 0: return .double(pick([5000.0, 5000.5, 0.1, 1.5, -2.25, 0.30000000000000004, 9_007_199_254_740_992.0, 3]))
            case 1: return decimal(pick(["5000", "0.1", "1234.5678", "-3.5", "0.3", "100", "1e-7", "99999999999999999999.5"]))
            case 2: return .boolean(chance(50))
            case 3: return .integer(pick([0, 1, 1000, 5000, 52000, 2000, 3000, -5, 9_007_199_254_740_993, 9_007_199_254_740_992]))
            default:
                switch kind {
                case .double: return SQLTestDataset.ratings.compactMap { $0 }.map(PropertyValue.double).randomElement(using: &random) ?? .null
                case .decimal: return decimal(pick(SQLTestDataset.bonuses.compactMap { $0 } + SQLTestDataset.budgets.compactMap { $0 }))
                default: return .integer(pick(SQLTestDataset.salaries.compactMap { $0 } + [3000, 4000]))
                }
            }
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: pick(SQLTestDataset.dates.compactMap { $0 } + [1, 700_000_000.5])))
        case .data:
            return .data(pick(SQLTestDataset.photos.compactMap { $0 }))
        case .uuid:
            let uuid = pick(SQLTestDataset.badges.compactMap { $0 })
            return chance(30) ? .string(uuid.uuidString.lowercased()) : .uuid(uuid)
        case .uri:
            let url = pick(SQLTestDataset.homepages.compactMap { $0 })
            return chance(30) ? .string(url.absoluteString) : .uri(url)
        case .null:
            return .null
        }
    }
}
