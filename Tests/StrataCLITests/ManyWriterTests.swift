import Foundation
import Strata
import StrataTestSupport
import Testing

/// Many processes writing one document at once (docs/RELIABILITY.md, "Writers never
/// collide"): every save a process was told succeeded must be in the document exactly once.
///
/// Each `strata-stress-writer write` process makes seeded random changes to its own
/// employees — inserts, updates, department moves, project memberships (shared, so they
/// conflict and merge), deletes, undo and redo — saving after each and printing what its
/// context holds after every save that succeeded. One more process compacts all the while,
/// keeping only the last two segments, so the writers also meet segments they never read.
/// At the end the acknowledged state of every employee must be what the document holds,
/// no employee may exist twice or unacknowledged, and `strata-log verify` must pass.
///
/// CI runs 2, 4 and 8 writers at a small size; `STRATA_STRESS_OPERATIONS` makes each
/// writer do more (the figures in docs/RELIABILITY.md come from such runs).
@Suite(.serialized) struct ManyWriters {
    static let operations = ProcessInfo.processInfo.environment["STRATA_STRESS_OPERATIONS"].flatMap { Int($0) } ?? 24

    @Test(arguments: [2, 4, 8])
    func everyAcknowledgedChangeIsInTheDocumentExactlyOnce(writers: Int) throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("shared.strata")
        try Self.makeDocument(document, departments: 3, projects: 3)
        let seed = testSeed("ManyWriters.\(writers)")

        var arguments = (0..<writers).map {
            ["write", document, "--name", "W\($0)", "--seed", String(seed &+ UInt64($0)), "--operations", String(Self.operations)]
        }
        arguments.append(["compact", document, "--seed", String(seed), "--operations", String(max(4, Self.operations / 2))])
        let results = try CLI.runAll("strata-stress-writer", arguments)
        for (index, result) in results.enumerated() {
            #expect(result.status == 0, "process \(index) (seed \(seed)) failed: \(result.stderr)")
        }

        var expected: [String: [Int: String]] = [:]
        var acknowledged = 0
        for (index, result) in results.dropLast().enumerated() {
            for line in result.stdout.split(separator: "\n") where line.hasPrefix("ack ") {
                let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard fields.count == 3, let number = Int(fields[1]) else { continue }
                expected["W\(index)", default: [:]][number] = fields[2]
                acknowledged += 1
            }
        }
        #expect(acknowledged >= writers * Self.operations / 2, "too few saves succeeded (seed \(seed))")

        let saves = results.dropLast().map { $0.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("ack 1 ") }.count }
        let failures = results.dropLast().map { $0.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("failed:") }.count }
        let compactions = results.last?.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("compacted") }.count ?? 0
        let actual = try Self.employees(in: document)
        print("ManyWriters: \(writers) writers × \(Self.operations) changes: \(saves.reduce(0, +)) saves acknowledged, "
              + "\(failures.reduce(0, +)) refused and rolled back, \(compactions) compactions beside them; "
              + "\(expected.values.reduce(0) { $0 + $1.count }) employees checked, "
              + "\(actual.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }) in the document")
        for (name, numbers) in expected {
            for (number, state) in numbers {
                let found = actual[name]?[number] ?? []
                if state == "absent" {
                    #expect(found.isEmpty, "\(name) #\(number) was acknowledged deleted but is in the document (seed \(seed))")
                } else {
                    #expect(found == [String(state.dropFirst("present ".count))],
                            "\(name) #\(number): acknowledged \(state), the document holds \(found) (seed \(seed))")
                }
            }
        }
        for (name, numbers) in actual {
            for number in numbers.keys where expected[name]?[number] == nil {
                Issue.record("\(name) #\(number) is in the document but no save of it was acknowledged (seed \(seed))")
            }
        }
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "verify (seed \(seed)): \(verify.stdout) \(verify.stderr)")
    }

    /// Two processes each insert and then undo at the same moment, many times: each undo
    /// reverts exactly its own process's group, so nothing they made is left and nothing
    /// else is touched.
    @Test func twoProcessesUndoingAtOnceEachRevertTheirOwnGroup() throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("undo.strata")
        try Self.makeDocument(document, departments: 1, projects: 1)
        for round in 0..<12 {
            let results = try CLI.runAll("strata-stress-writer", [
                ["insert-undo", document, "--name", "A\(round)"], ["insert-undo", document, "--name", "B\(round)"],
            ])
            #expect(results[0].stdout == "undid Hire A\(round)\n", "round \(round): \(results[0].stdout) \(results[0].stderr)")
            #expect(results[1].stdout == "undid Hire B\(round)\n", "round \(round): \(results[1].stdout) \(results[1].stderr)")
        }
        let counts = try Self.counts(in: document)
        #expect(counts == ["Department": 1, "Employee": 0, "Project": 1])
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
    }

    /// The command line's undo reverts the document's last group: after two processes
    /// inserted at the same moment, one `strata undo` removes exactly one of the two.
    @Test func oneCommandLineUndoAfterTwoConcurrentInsertsRevertsExactlyOne() throws {
        let sandbox = try TemporaryDirectory()
        for round in 0..<8 {
            let document = try sandbox.employees("round\(round).strata")
            let results = try CLI.runAll("strata", [
                ["insert", document, "Department", "name=A"], ["insert", document, "Department", "name=B"],
            ])
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
            let undo = try CLI.strata("undo", document)
            #expect(undo.status == 0, "\(undo.stderr)")
            #expect(try Self.counts(in: document)["Department"] == 1, "round \(round): one undo must revert one insert")
        }
    }

    // MARK: Helpers

    static func makeDocument(_ path: String, departments: Int, projects: Int) throws {
        let model = ManagedObjectModel.employeesExample()
        let store = try DocumentStore(creatingAt: URL(fileURLWithPath: path), model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<departments {
            try context.insertObject(forEntityName: "Department").setValue(.string("D\(index)"), forKey: "name")
        }
        for index in 0..<projects {
            try context.insertObject(forEntityName: "Project").setValue(.string("P\(index)"), forKey: "name")
        }
        try context.save()
        try store.close()
    }

    /// Every employee of the document by writer name and number, each as the writer's
    /// acknowledgement states it: "SALARY DEPARTMENT PROJECTS".
    static func employees(in path: String) throws -> [String: [Int: [String]]] {
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: path), model: ManagedObjectModel.employeesExample())
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        func plain(_ value: PropertyValue) -> String {
            switch value {
            case .string(let text): return text
            case .integer(let number): return String(number)
            default: return "null"
            }
        }
        var result: [String: [Int: [String]]] = [:]
        for employee in try context.fetch(FetchRequest(entityName: "Employee")) {
            guard case .string(let name) = try employee.value(forKey: "firstName"),
                  case .integer(let number) = try employee.value(forKey: "employeeID") else { continue }
            let projects = try employee.value(forKey: "projects").objectIDs
                .map { try plain(context.existingObject(with: $0).value(forKey: "name")) }.sorted()
            let state = try [
                plain(employee.value(forKey: "salary")), plain(employee.value(forKeyPath: "department.name").value ?? .null),
                projects.isEmpty ? "-" : projects.joined(separator: ","),
            ].joined(separator: " ")
            result[name, default: [:]][Int(number), default: []].append(state)
        }
        return result
    }

    static func counts(in path: String) throws -> [String: Int] {
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: path), model: ManagedObjectModel.employeesExample())
        defer { try? store.close() }
        var counts: [String: Int] = [:]
        for entity in store.model.entities where !entity.isAbstract {
            counts[entity.name] = try store.objectIDs(for: entity, includingSubentities: false).count
        }
        return counts
    }
}
