import Foundation
@testable import Strata

/// Seeded random edits and fetch requests for the equivalence test, over the example model.
/// Predicates name objects through variables (`$E3`, `$D0`, `$P1`) that each world binds to
/// its own IDs.
struct EquivalenceGenerator {
    var random: SeededGenerator

    static let lastNames = ["Lovelace", "lovelace", "Lövelace", "Turing", "hopper", "Hopper", "Émile", "emile", "Zed",
                            "Quinn", "quinn", "Qadir", "Müller", "Muller"]
    static let firstNames = ["Ada", "Alan", "Grace", "Edsger", "ada", "Émile", "Quentin"]
    static let groupNames = ["Alpha", "beta", "Gamma", "délta", "Beta", "Engine"]
    static let fragments = ["l", "L", "h", "É", "e", "q", "Q", "ove", "ll", "ü"]

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    // MARK: Values

    mutating func salary() -> PropertyValue { chance(12) ? .null : .integer(Int64(int(0...20)) * 10_000 + (chance(10) ? 5 : 0)) }
    mutating func rating() -> PropertyValue { chance(20) ? .null : .double(Double(int(0...50)) / 10) }
    mutating func decimal() -> PropertyValue { chance(30) ? .null : .decimal(Decimal(int(-8...40)) / 4) }
    mutating func date() -> PropertyValue {
        chance(20) ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(int(0...20)) * 2_592_000))
    }
    mutating func salaryText() -> String { String(int(0...20) * 10_000) }
    mutating func dateText() -> String { "CAST(\(int(0...20) * 2_592_000), 'NSDate')" }
    mutating func options() -> String { pick(["", "", "[c]", "[d]", "[cd]"]) }

    // MARK: Edits

    /// One random edit of the live objects of `world` (inserts when there is nothing to edit).
    mutating func step(in world: EquivalenceWorld) -> EquivalenceStep {
        let employees = world.live("Employee"), departments = world.live("Department"), projects = world.live("Project")
        func optionalPick(_ items: [Int], _ percent: Int) -> Int? { items.isEmpty || !chance(percent) ? nil : pick(items) }
        switch int(0...19) {
        case 0...4:
            let new = EquivalenceStep.NewEmployee(
                first: pick(Self.firstNames), last: pick(Self.lastNames), salary: salary(), rating: rating(), bonus: decimal(),
                start: date(), active: chance(60), department: optionalPick(departments, 85), manager: optionalPick(employees, 60),
                projects: projects.filter { _ in chance(25) })
            return .insertEmployee(new)
        case 5: return .insertDepartment(name: pick(Self.groupNames), budget: decimal())
        case 6: return .insertProject(name: pick(Self.groupNames), deadline: date())
        case 7, 8:
            guard let index = optionalPick(employees, 100) else { return .insertDepartment(name: pick(Self.groupNames), budget: decimal()) }
            let key = pick(["salary", "salary", "lastName", "rating", "bonus", "startDate", "active", "firstName"])
            let value: PropertyValue = switch key {
            case "salary": salary()
            case "lastName": .string(pick(Self.lastNames))
            case "firstName": .string(pick(Self.firstNames))
            case "rating": rating()
            case "bonus": decimal()
            case "startDate": date()
            default: .boolean(chance(50))
            }
            return .set(entity: "Employee", index: index, key: key, value: value)
        case 9:
            if chance(50), let index = optionalPick(departments, 100) {
                return chance(50) ? .set(entity: "Department", index: index, key: "name", value: .string(pick(Self.groupNames)))
                    : .set(entity: "Department", index: index, key: "budget", value: decimal())
            }
            guard let index = optionalPick(projects, 100) else { return .insertProject(name: pick(Self.groupNames), deadline: date()) }
            return chance(50) ? .set(entity: "Project", index: index, key: "name", value: .string(pick(Self.groupNames)))
                : .set(entity: "Project", index: index, key: "deadline", value: date())
        case 10, 11:
            guard let index = optionalPick(employees, 100) else { return .save }
            if chance(50) { return .relate(employee: index, key: "department", to: optionalPick(departments, 80)) }
            return .relate(employee: index, key: "manager", to: optionalPick(employees.filter { $0 != index }, 70))
        case 12, 13:
            guard let employee = optionalPick(employees, 100), let project = optionalPick(projects, 100) else { return .save }
            return .join(employee: employee, project: project, adding: chance(70))
        case 14:
            guard let index = optionalPick(employees, 100) else { return .save }
            return .delete(entity: "Employee", index: index)
        case 15:
            if chance(25), departments.count > 2, let index = optionalPick(departments, 100) { return .delete(entity: "Department", index: index) }
            if chance(25), projects.count > 2, let index = optionalPick(projects, 100) { return .delete(entity: "Project", index: index) }
            return .save
        default:
            return .save
        }
    }

    // MARK: Requests

    /// A variable naming an object of `entity` (`$E3`), usually a live one.
    mutating func variable(_ entity: String, in world: EquivalenceWorld) -> String {
        let live = world.live(entity)
        let count = world.objects[entity]?.count ?? 0
        let index = !live.isEmpty && chance(85) ? pick(live) : int(0...max(count - 1, 0))
        return "$\(entity.prefix(1))\(index)"
    }

    mutating func employeeAtom(_ world: EquivalenceWorld) -> String {
        switch int(0...33) {
        case 0: return "salary \(pick([">", ">=", "<", "<=", "==", "!="])) \(salaryText())"
        case 1: return pick(["salary == nil", "salary != nil", "rating == nil", "bonus != nil", "startDate == nil"])
        case 2: return "salary BETWEEN {\(int(0...10) * 10_000), \(int(10...20) * 10_000)}"
        case 3: return "salary IN {\(salaryText()), \(salaryText()), \(salaryText())}"
        case 4: return "lastName \(pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(options()) '\(pick(Self.fragments))'"
        case 5: return "lastName \(pick(["==", "!=", "<", ">="]))\(options()) '\(pick(Self.lastNames))'"
        case 6: return "lastName LIKE\(options()) '\(pick(["*ll*", "?uring", "Q*", "*e", "m?ller"]))'"
        case 7: return "lastName MATCHES\(options()) '\(pick(["Q.*", "[a-z]+", ".*e", "M.ller", "(Zed|Quinn)"]))'"
        case 8: return "firstName IN\(options()) {'\(pick(Self.firstNames))', '\(pick(Self.firstNames))'}"
        case 9: return pick(["active == YES", "active == NO", "active != YES"])
        case 10: return "rating \(pick(["<", ">", "=="])) \(Double(int(0...50)) / 10)"
        case 11: return "bonus \(pick(["<", ">", "==", ">="])) \(pick(["2.5", "5", "0", "-1.25", "7.75"]))"
        case 12: return "startDate \(pick(["<", ">=", "=="])) \(dateText())"
        case 13: return "department.name \(pick(["==", "BEGINSWITH", "!="]))\(options()) '\(pick(Self.groupNames))'"
        case 14: return pick(["department == nil", "department != nil", "manager == nil", "manager != nil"])
        case 15: return "department == \(variable("Department", in: world))"
        case 16: return "manager == \(variable("Employee", in: world))"
        case 17: return "manager.salary > \(salaryText())"
        case 18: return "manager.department.name ==\(options()) '\(pick(Self.groupNames))'"
        case 19: return "department.budget \(pick(["<", ">"])) \(pick(["0", "3.5", "8"]))"
        case 20: return "\(pick(["ANY", "ALL", "NONE"])) projects.name ==\(options()) '\(pick(Self.groupNames))'"
        case 21: return "\(pick(["ANY", "ALL", "NONE"])) projects.deadline > \(dateText())"
        case 22: return pick(["projects.@count \(pick([">=", "==", "<"])) \(int(0...3))", "directReports.@count > 0",
                              "directReports.@sum.salary > \(salaryText())", "directReports.@avg.rating > 2.5",
                              "directReports.@max.salary >= \(salaryText())", "projects.@min.deadline < \(dateText())"])
        case 23: return "SUBQUERY(projects, $p, $p.name CONTAINS[c] '\(pick(["a", "e", "t"]))').@count > 0"
        case 24: return "SUBQUERY(directReports, $r, $r.salary > \(salaryText()) AND $r.active == YES).@count >= 1"
        case 25: return pick(["\(variable("Project", in: world)) IN projects", "ANY projects == \(variable("Project", in: world))"])
        case 26: return pick(["SELF == \(variable("Employee", in: world))",
                              "SELF IN {\(variable("Employee", in: world)), \(variable("Employee", in: world))}"])
        case 28...33: return expressionAtom(world)
        default: return pick(["fullName == nil", "ANY directReports.lastName BEGINSWITH[c] '\(pick(Self.fragments))'"])
        }
    }

    /// Expressions (issue 18), pushed down to SQL or residual, against pending changes too.
    mutating func expressionAtom(_ world: EquivalenceWorld) -> String {
        switch int(0...9) {
        case 0: return "\(pick(["salary * 2", "salary + rating", "salary / 3", "-salary", "(salary - 100000) * 3", "modulus:by:(salary, 7)"])) \(pick([">", "<=", "=="])) \(pick(["0", "50000", "-50000", "100000.5", "nil"]))"
        case 1: return "\(pick(["bonus * 2", "bonus + 1", "bonus / 4", "abs:(bonus)", "floor:(bonus)", "bonus - rating"])) \(pick([">", "<", "=="])) \(pick(["0", "2.5", "5", "-1.25"]))"
        case 2: return "\(pick(["startDate + 86400", "startDate - 2592000", "CAST(startDate, 'NSNumber')"])) \(pick([">", "<"])) \(pick([dateText(), "20000000"]))"
        case 3: return "\(pick(["uppercase:(lastName)", "lowercase(lastName)", "TERNARY(active == YES, lastName, firstName)"])) \(pick(["==", "BEGINSWITH", "<"]))\(options()) '\(pick(Self.lastNames + Self.fragments))'"
        case 4: return "\(pick(["lastName.length", "length:(firstName)", "projects[SIZE]", "count:(directReports)"])) \(pick([">", "=="])) \(int(0...7))"
        case 5: return "\(pick(["sum:(directReports.salary)", "max:(directReports.salary)", "median:(directReports.salary)", "average:(directReports.rating)", "stddev:(directReports.rating)", "min:(directReports.bonus)"])) \(pick([">", "<", "=="])) \(pick(["0", "2.5", "50000", "nil"]))"
        case 6: return "\(pick(["TERNARY(active == YES, salary, 0)", "TERNARY(rating > 2.5, salary * 2, salary)", "{salary, 5}[FIRST]", "SELF['salary']", "sqrt:(salary)"])) > \(pick(["0", "50000", "100000"]))"
        case 7: return "'\(pick(Self.fragments))' IN\(options()) \(pick(["lastName", "firstName", "department.name"]))"
        case 8: return "\(pick(["lastName", "firstName"])) \(pick(["<", "==", ">=", "BEGINSWITH", "CONTAINS"]))\(pick(["[l]", "[cl]", "[n]", "[cdn]", "[dl]"])) '\(pick(Self.lastNames + Self.fragments))'"
        default: return "\(pick(["bitwiseAnd:with:(salary, 5)", "salary ** 2", "trunc:(rating * 3)", "random:(1) + salary"])) \(pick([">", "=="])) \(pick(["0", "1", "25000000"]))"
        }
    }

    mutating func departmentAtom(_ world: EquivalenceWorld) -> String {
        switch int(0...8) {
        case 7: return "\(pick(["sum:(employees.salary)", "count:(employees.bonus)", "average:(employees.salary)", "employees[SIZE]", "max:(employees.startDate) - CAST(0, 'NSDate')"])) \(pick([">", "<"])) \(pick(["0", "2", "50000", "100000"]))"
        case 8: return "budget * 2 \(pick([">", "=="])) \(pick(["0", "5", "-14.5"]))"
        case 0: return "name \(pick(["==", "BEGINSWITH", "CONTAINS", "<"]))\(options()) '\(pick(Self.groupNames))'"
        case 1: return "budget \(pick(["<", ">", "==", "!="])) \(pick(["0", "2.5", "5", "nil"]))"
        case 2: return "employees.@count \(pick([">", "==", "<="])) \(int(0...4))"
        case 3: return "ANY employees.salary > \(salaryText())"
        case 4: return "employees.@sum.salary \(pick([">", "<"])) \(int(0...10) * 50_000)"
        case 5: return "SUBQUERY(employees, $e, $e.lastName BEGINSWITH[cd] '\(pick(Self.fragments))').@count > 0"
        default: return "\(variable("Employee", in: world)) IN employees"
        }
    }

    mutating func projectAtom(_ world: EquivalenceWorld) -> String {
        switch int(0...5) {
        case 0: return "name \(pick(["==", "ENDSWITH", "!="]))\(options()) '\(pick(Self.groupNames))'"
        case 1: return "deadline \(pick(["<", ">", "=="])) \(dateText())"
        case 2: return pick(["deadline == nil", "deadline != nil"])
        case 3: return "members.@count \(pick([">", "==", "<"])) \(int(0...5))"
        case 4: return "ANY members.department.name ==\(options()) '\(pick(Self.groupNames))'"
        default: return "NONE members.salary < \(salaryText())"
        }
    }

    mutating func predicateFormat(_ entity: String, depth: Int, world: EquivalenceWorld) -> String {
        guard depth > 0, chance(45) else {
            switch entity {
            case "Department": return departmentAtom(world)
            case "Project": return projectAtom(world)
            default: return employeeAtom(world)
            }
        }
        switch int(0...2) {
        case 0: return "(\(predicateFormat(entity, depth: depth - 1, world: world)) AND \(predicateFormat(entity, depth: depth - 1, world: world)))"
        case 1: return "(\(predicateFormat(entity, depth: depth - 1, world: world)) OR \(predicateFormat(entity, depth: depth - 1, world: world)))"
        default: return "NOT (\(predicateFormat(entity, depth: depth - 1, world: world)))"
        }
    }

    static let sortKeys = [
        "Employee": ["salary", "lastName", "firstName", "rating", "bonus", "startDate", "active", "department.name",
                     "manager.salary", "manager.lastName", "department.budget"],
        "Person": ["lastName", "firstName"],
        "Department": ["name", "budget"],
        "Project": ["name", "deadline"],
    ]

    /// A random request description, bound to each world by ``EquivalenceRequest/fetchRequest(in:)``.
    mutating func request(in world: EquivalenceWorld) -> EquivalenceRequest {
        let entity = pick(["Employee", "Employee", "Employee", "Employee", "Department", "Project", "Person"])
        let predicateEntity = entity == "Person" ? "Employee" : entity
        var format = chance(8) ? nil : predicateFormat(predicateEntity, depth: 2, world: world)
        if entity == "Person", format != nil {
            // Only Person's own keys: an Employee key on a Person fetch is an unknown key in
            // SQL, while the in-memory store evaluates it on the Employee rows.
            format = "lastName \(pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(options()) '\(pick(Self.fragments))'"
                + (chance(50) ? " OR firstName ==\(options()) '\(pick(Self.firstNames))'" : "")
        }
        let sorts = (0..<int(0...3)).map { _ in
            (pick(Self.sortKeys[entity] ?? []), chance(50), pick([FetchSortDescriptor.Comparison.binary, .caseInsensitive, .localized]))
        }
        return EquivalenceRequest(
            entity: entity, format: format, sorts: sorts,
            offset: chance(35) ? int(0...8) : 0, limit: chance(50) ? int(1...12) : 0,
            kind: pick([.ids, .ids, .ids, .objects, .count]))
    }
}

/// A request of the equivalence test, bound to a world's IDs when it runs.
struct EquivalenceRequest: CustomStringConvertible {
    enum Kind { case ids, objects, count }
    var entity: String
    var format: String?
    var sorts: [(String, Bool, FetchSortDescriptor.Comparison)]
    var offset: Int
    var limit: Int
    var kind: Kind

    func fetchRequest(in world: EquivalenceWorld) throws -> FetchRequest<ManagedObject> {
        let predicate = try format.map { try FetchPredicate(format: $0).withSubstitutionVariables(world.variables()) }
        let request = FetchRequest(entityName: entity, predicate: predicate,
                                   sortDescriptors: sorts.map { FetchSortDescriptor($0.0, ascending: $0.1, comparison: $0.2) })
        request.fetchOffset = offset
        request.fetchLimit = limit
        return request
    }

    /// What the world answers: labels in order, a count, or an error code.
    func run(in world: EquivalenceWorld) -> String {
        do {
            let request = try fetchRequest(in: world)
            let labels = world.labels()
            func named(_ ids: [ManagedObjectID]) -> String { ids.map { labels[$0] ?? "?\($0)" }.joined(separator: " ") }
            switch kind {
            case .ids: return named(try world.context.fetchObjectIDs(request))
            case .objects: return named(try world.context.fetch(request).map(\.objectID))
            case .count: return "count \(try world.context.count(for: request))"
            }
        } catch let error as StrataError {
            return "error \(error.code)"
        } catch {
            return "error \(error)"
        }
    }

    var description: String {
        var text = "\(kind) \(entity)"
        if let format { text += " where \(format)" }
        if !sorts.isEmpty { text += " sorted by " + sorts.map { "\($0.0)\($0.1 ? "" : " desc") \($0.2)" }.joined(separator: ", ") }
        if offset > 0 { text += " offset \(offset)" }
        if limit > 0 { text += " limit \(limit)" }
        return text
    }
}
