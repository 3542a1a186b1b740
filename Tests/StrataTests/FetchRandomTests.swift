import Foundation
import Testing
@testable import Strata

/// Random graphs, random pending changes and random requests: `context.fetch` over the
/// in-memory store must equal a brute-force filter and sort of every live object.
@Suite struct FetchRandomTests {
    @Test func randomFetchesEqualABruteForceFilterOverEveryObject() throws {
        let seed = explorationSeed()
        print("FetchRandomTests seed \(seed) (set STRATA_SEED to replay)")
        // Regression seeds first, then a fresh one.
        for runSeed in [1, 2, 3, 42, 0xDEADBEEF, seed] {
            var world = try RandomFetchWorld(seed: runSeed)
            try world.check(rounds: 30, label: "seed \(runSeed), saved state")
            try world.makePendingChanges(count: 12)
            try world.check(rounds: 60, label: "seed \(runSeed), pending changes")
        }
    }
}

struct RandomFetchWorld {
    let stack = Stack()
    var random: SeededGenerator
    var departments: [ManagedObject] = []
    var projects: [ManagedObject] = []
    var employees: [ManagedObject] = []
    var changes: [String] = []

    let lastNames = ["Lovelace", "lovelace", "Lövelace", "Turing", "hopper", "Hopper", "Émile", "emile", "Zed"]
    let firstNames = ["Ada", "Alan", "Grace", "Edsger", "ada"]
    let groupNames = ["Alpha", "beta", "Gamma", "délta", "Beta"]

    var context: ManagedObjectContext { stack.context }

    init(seed: UInt64) throws {
        random = SeededGenerator(seed: seed)
        for _ in 0..<3 { departments.append(try stack.department(pick(groupNames))) }
        for _ in 0..<3 { projects.append(try stack.project(pick(groupNames))) }
        for _ in 0..<20 { try insertEmployee() }
        try context.save()
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    mutating func pickLive(_ objects: [ManagedObject]) -> ManagedObject? {
        let live = objects.filter { !$0.isDeleted && !$0.isInvalid }
        return live.isEmpty ? nil : pick(live)
    }

    mutating func salary() -> PropertyValue { chance(15) ? .null : .integer(Int64(int(0...20)) * 10_000) }

    mutating func insertEmployee() throws {
        let employee = try stack.employee(pick(firstNames), pick(lastNames))
        try employee.setValue(salary(), forKey: "salary")
        try employee.setValue(chance(20) ? .null : .double(Double(int(0...50)) / 10), forKey: "rating")
        try employee.setValue(.boolean(chance(50)), forKey: "active")
        if chance(80), let department = pickLive(departments) { try employee.setObject(department, forKey: "department") }
        if chance(60), let manager = pickLive(employees) { try employee.setObject(manager, forKey: "manager") }
        for project in projects where chance(30) { try employee.mutableSetValue(forKey: "projects").add(project) }
        employees.append(employee)
    }

    mutating func makePendingChanges(count: Int) throws {
        for _ in 0..<count {
            switch int(0...9) {
            case 0, 1:
                try insertEmployee()
                changes.append("insert \(employees.last!.objectID)")
            case 2:
                guard let employee = pickLive(employees) else { continue }
                context.delete(employee)
                changes.append("delete \(employee.objectID)")
            case 3, 4:
                guard let employee = pickLive(employees) else { continue }
                let value = salary()
                try employee.setValue(value, forKey: "salary")
                changes.append("salary \(employee.objectID) = \(value)")
            case 5:
                guard let employee = pickLive(employees) else { continue }
                let name = pick(lastNames)
                try employee.setValue(.string(name), forKey: "lastName")
                changes.append("lastName \(employee.objectID) = \(name)")
            case 6:
                guard let employee = pickLive(employees) else { continue }
                let department = chance(20) ? nil : pickLive(departments)
                try employee.setObject(department, forKey: "department")
                changes.append("department \(employee.objectID) = \(department?.objectID.description ?? "nil")")
            case 7:
                guard let employee = pickLive(employees) else { continue }
                let manager = chance(30) ? nil : pickLive(employees.filter { $0 !== employee })
                try employee.setObject(manager, forKey: "manager")
                changes.append("manager \(employee.objectID) = \(manager?.objectID.description ?? "nil")")
            case 8:
                guard let group = pickLive(chance(50) ? departments : projects) else { continue }
                let name = pick(groupNames)
                try group.setValue(.string(name), forKey: "name")
                changes.append("rename \(group.objectID) = \(name)")
            default:
                if chance(30), let department = pickLive(departments) {
                    context.delete(department)
                    changes.append("delete department \(department.objectID) (cascade)")
                } else if let employee = pickLive(employees), let project = pickLive(projects) {
                    try employee.mutableSetValue(forKey: "projects").add(project)
                    changes.append("join \(employee.objectID) to \(project.objectID)")
                }
            }
        }
    }

    // MARK: Requests

    mutating func atom() -> String {
        switch int(0...15) {
        case 0: return "salary > \(int(0...20) * 10_000)"
        case 1: return "salary <= \(int(0...20) * 10_000)"
        case 2: return pick(["salary == nil", "salary != nil"])
        case 3: return "salary BETWEEN {\(int(0...10) * 10_000), \(int(10...20) * 10_000)}"
        case 4: return "lastName BEGINSWITH\(pick(["", "[c]", "[cd]"])) '\(pick(["l", "L", "h", "É", "e"]))'"
        case 5: return "lastName CONTAINS\(pick(["", "[c]", "[d]", "[cd]"])) '\(pick(["o", "ove", "E", "ur"]))'"
        case 6: return "lastName == '\(pick(lastNames))'"
        case 7: return "firstName IN {'\(pick(firstNames))', '\(pick(firstNames))'}"
        case 8: return pick(["active == YES", "active == NO"])
        case 9: return "rating < \(Double(int(0...50)) / 10)"
        case 10: return "department.name \(pick(["==", "BEGINSWITH[cd]"])) '\(pick(groupNames))'"
        case 11: return pick(["department == nil", "department != nil", "manager == nil"])
        case 12: return "manager.salary > \(int(0...20) * 10_000)"
        case 13: return "ANY projects.name == '\(pick(groupNames))'"
        case 14: return pick(["projects.@count >= \(int(0...3))", "directReports.@count > 0", "directReports.@sum.salary > 100000"])
        default: return "SUBQUERY(projects, $p, $p.name CONTAINS[c] '\(pick(["a", "e", "t"]))').@count > 0"
        }
    }

    mutating func predicateFormat(depth: Int) -> String {
        guard depth > 0, chance(50) else { return atom() }
        switch int(0...2) {
        case 0: return "(\(predicateFormat(depth: depth - 1)) AND \(predicateFormat(depth: depth - 1)))"
        case 1: return "(\(predicateFormat(depth: depth - 1)) OR \(predicateFormat(depth: depth - 1)))"
        default: return "NOT (\(predicateFormat(depth: depth - 1)))"
        }
    }

    mutating func sortDescriptors() -> [FetchSortDescriptor] {
        (0..<int(0...2)).map { _ in
            let key = pick(["salary", "lastName", "firstName", "rating", "department.name", "manager.salary", "department"])
            return FetchSortDescriptor(key, ascending: chance(50), comparison: pick([.binary, .caseInsensitive, .localized]))
        }
    }

    mutating func request() throws -> (FetchRequest<ManagedObject>, String) {
        let format = chance(10) ? nil : predicateFormat(depth: 2)
        let request = FetchRequest(entityName: "Employee", predicate: try format.map { try FetchPredicate(format: $0) },
                                   sortDescriptors: sortDescriptors())
        if chance(40) { request.fetchOffset = int(0...6) }
        if chance(50) { request.fetchLimit = int(1...8) }
        return (request, request.description)
    }

    // MARK: Brute force

    /// Every live employee, judged and sorted one by one by its current values.
    func bruteForce(_ request: FetchRequest<ManagedObject>) throws -> [ManagedObjectID] {
        context.processPendingChanges()
        let entity = try stack.model.entity(named: "Employee")
        var ids = Set(try stack.store.objectIDs(for: entity, includingSubentities: true))
        for object in context.insertedObjects where object.entity === entity { ids.insert(object.objectID) }
        var records: [(id: ManagedObjectID, keys: [PropertyValue])] = []
        for id in ids {
            let object = context.object(with: id)
            if object.isDeleted { continue }
            if let predicate = request.predicate, try !predicate.evaluate(with: object) { continue }
            records.append((id, try FetchSortDescriptor.sortKeys(of: object, for: request.sortDescriptors)))
        }
        let sorted = FetchSortDescriptor.sort(records, by: request.sortDescriptors).map(\.id)
        return StoreFetchMerge.window(sorted, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    mutating func check(rounds: Int, label: String) throws {
        for round in 0..<rounds {
            let (request, text) = try request()
            let context = label.hasSuffix("saved state") && round % 2 == 0 ? stack.newContext() : self.context
            let expected = try bruteForce(request)
            let fetched = try context.fetch(request).map(\.objectID)
            let why = "\(label), round \(round): \(text)\nchanges: \(changes.joined(separator: "; "))"
            #expect(fetched == expected, "\(why)")
            #expect(try context.fetchObjectIDs(request) == expected, "\(why)")
            #expect(try context.count(for: request) == expected.count, "\(why)")
            // Without pending changes, the answer is a fresh context's.
            request.includesPendingChanges = false
            #expect(try context.fetchObjectIDs(request) == stack.newContext().fetchObjectIDs(request), "\(why)")
            if fetched != expected { return }
        }
    }
}
