import Foundation
import Testing
@testable import Strata

/// Two contexts make random, overlapping edits to the batch graph (attribute changes, moves,
/// memberships, managers, deletes, several flushes); the second saves under each resolving
/// policy. Whatever the policy decides, the store's graph must stay consistent: every
/// to-one's destination lists the record in its inverse and the other way round,
/// many-to-many memberships are symmetric, nothing points at a deleted record, and the
/// context holds what it saved as the store does. (Run locally with 250 seeds.)
@Suite struct MergePolicyRandomEdits {
    private func edit(_ context: ManagedObjectContext, _ graph: BatchGraph, _ random: inout SeededGenerator, steps: Int) throws {
        let employees = graph.employees.keys.sorted()
        let departments = graph.departments.values.sorted()
        let projects = graph.projects.values.sorted()
        for _ in 0..<steps {
            let employee = try context.existingObject(with: graph.employee(employees.randomElement(using: &random)!))
            guard !employee.isDeleted else { continue }
            switch Int.random(in: 0..<7, using: &random) {
            case 6 where Int.random(in: 0..<3, using: &random) == 0:
                context.delete(employee)
            case 0:
                try employee.setValue(.integer(Int64.random(in: 1...9, using: &random)), forKey: "salary")
            case 1:
                let department = Bool.random(using: &random) ? context.object(with: departments.randomElement(using: &random)!) : nil
                try employee.setObject(department, forKey: "department")
            case 2:
                let project = context.object(with: projects.randomElement(using: &random)!)
                let members = try project.mutableSetValue(forKey: "members")
                if try members.contains(employee) { try members.remove(employee) } else { try members.add(employee) }
            case 3:
                let other = try context.existingObject(with: graph.employee(employees.randomElement(using: &random)!))
                try employee.setObject(other == employee || other.isDeleted ? nil : other, forKey: "manager")
            case 4:
                context.processPendingChanges()   // later changes flush separately
            default:
                try context.existingObject(with: departments.randomElement(using: &random)!)
                    .setValue(.string("D\(Int.random(in: 0..<5, using: &random))"), forKey: "name")
            }
        }
    }

    private func expectConsistent(_ reader: ManagedObjectContext, _ graph: BatchGraph, _ label: String) throws {
        for id in graph.employees.values {
            guard let employee = try? reader.existingObject(with: id) else { continue }   // deleted
            if let department = try employee.related("department") {
                #expect(try department.relatedSet("employees").contains(employee), "\(label): department lists its employee")
            }
            for report in try employee.relatedSet("directReports") {
                #expect(try report.related("manager") == employee, "\(label): a direct report's manager")
            }
            if let manager = try employee.related("manager") {
                #expect(try manager.relatedSet("directReports").contains(employee), "\(label): manager lists the report")
            }
            for project in try employee.relatedSet("projects") {
                #expect(try project.relatedSet("members").contains(employee), "\(label): project lists its member")
            }
        }
        for id in graph.departments.values {
            let department = try reader.existingObject(with: id)
            for employee in try department.relatedSet("employees") {
                #expect(try employee.related("department") == department, "\(label): member points back")
            }
        }
        for id in graph.projects.values {
            let project = try reader.existingObject(with: id)
            for member in try project.relatedSet("members") {
                #expect(try member.relatedSet("projects").contains(project), "\(label): member lists the project")
            }
        }
    }

    /// Loads the graph in both contexts, edits in the first and saves, edits in the second
    /// and saves under `policy`, then checks the store through `reader`.
    private func exercise(seed: UInt64, policy: MergePolicy, graph: BatchGraph, first: ManagedObjectContext,
                          second: ManagedObjectContext, store: any PersistentStore, reader: () -> ManagedObjectContext) throws {
        var random = SeededGenerator(seed: seed)
        for context in [first, second] {
            context.retainsRegisteredObjects = true
            for id in Array(graph.employees.values) + Array(graph.departments.values) + Array(graph.projects.values) {
                _ = try context.existingObject(with: id)
            }
        }
        try edit(first, graph, &random, steps: 8)
        try first.save()
        try edit(second, graph, &random, steps: 8)
        second.mergePolicy = policy
        let label = "seed \(seed), \(policy)"
        let saves = NotificationRecorder([ManagedObjectContext.didSaveNotification], object: second)
        do {
            try second.save()
        } catch let error as StrataError where error.code == .validation {
            return   // a decided graph a validation rule refuses: nothing written
        }
        #expect(!second.hasChanges, "\(label)")
        // What the context saved, it holds as the store does.
        for id in saves.userInfos.last?[ManagedObjectContext.updatedObjectsKey] ?? [] {
            guard let object = second.registeredObject(for: id), let stored = try store.values(for: id) else { continue }
            #expect(ManagedObjectContext.samePersistentValues(object.storage.array, stored, of: id.entity),
                    "\(label): \(id) in the context and in the store")
        }
        // A reference to a deleted record would throw here (its fault cannot fire).
        do { try expectConsistent(reader(), graph, label) } catch { Issue.record("\(label): \(error)") }
    }

    @Test(arguments: BatchStoreKind.allCases)
    func resolvedSavesKeepTheStoresGraphConsistent(kind: BatchStoreKind) throws {
        for seed in UInt64(1)...16 {
            for policy in MergePolicy.allCases where policy != .error {
                let fixture = try BatchFixture(kind)
                let graph = try BatchGraph(in: fixture.context)
                try exercise(seed: seed, policy: policy, graph: graph, first: fixture.fresh(), second: fixture.fresh(),
                             store: fixture.store, reader: fixture.fresh)
            }
        }
    }

    @Test func resolvedSavesAcrossTwoConnectionsKeepTheDocumentConsistent() throws {
        for seed in UInt64(1)...8 {
            for policy in MergePolicy.allCases where policy != .error {
                let directory = try TemporaryDirectory()
                let url = directory.file()
                // Two connections to one file, as two processes have.
                let (graph, one, other) = try DocumentStack.twoConnections(url) { try BatchGraph(in: $0.context) }
                try exercise(seed: seed, policy: policy, graph: graph, first: one.context, second: other.context,
                             store: other.store, reader: { ManagedObjectContext(coordinator: other.coordinator) })
                try one.store.close()
                try other.store.close()
            }
        }
    }
}
