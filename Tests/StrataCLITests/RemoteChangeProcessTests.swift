import Foundation
import Strata
import Testing

/// Records the changes a fetched results controller reports, as "type lastName" lines.
private final class ChangeLog: FetchedResultsControllerDelegate {
    var lines: [String] = []
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject, at indexPath: ResultIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {
        let name = if case .string(let last)? = try? object.value(forKey: "lastName") { last } else { "?" }
        lines.append("\(type) \(name)")
    }
}

/// Another process's saves (the built `strata` tool) reach a document opened with
/// `watchesForRemoteChanges`: its view context merges them and its list reports the diffs,
/// though this process never saves or asks.
@Suite("another process's saves reach a watching document")
struct RemoteChangeProcessTests {
    private static func sections(_ list: FetchedResultsController<some ManagedObject>) -> String {
        (list.sections ?? []).map { section in
            "\(section.name): " + section.objects.map { object in
                if case .string(let last)? = try? object.value(forKey: "lastName") { return last }
                return "?"
            }.joined(separator: ",")
        }.joined(separator: " | ")
    }

    /// Polls until the list shows `expected` (the confinement view context merges at its
    /// next operation); the generous timeout only bounds a hang.
    private static func waitForList(_ list: FetchedResultsController<some ManagedObject>, _ expected: String, in context: ManagedObjectContext) throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            _ = try context.count(for: list.fetchRequest)
            if sections(list) == expected { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    @Test func aWatchingListFollowsAnotherProcesssMoveInsertAndDelete() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Engineering")
        _ = try sandbox.insert(document, "Department", "name=Sales")
        let lovelace = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "department=@Department/p1")
        let hopper = try sandbox.insert(document, "Employee", "firstName=Grace", "lastName=Hopper", "department=@Department/p2")

        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        options.configuration.watchesForRemoteChanges = true
        options.configuration.remoteChangePollInterval = 0.05
        let container = try PersistentContainer(name: "Staff", model: .employeesExample(), url: URL(fileURLWithPath: document),
                                                options: options)
        let request = FetchRequest(entityName: "Employee",
                                   sortDescriptors: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
        let list = FetchedResultsController(fetchRequest: request, managedObjectContext: container.viewContext,
                                            sectionNameKeyPath: "department.name")
        let log = ChangeLog()
        list.delegate = log
        try list.performFetch()
        #expect(Self.sections(list) == "Engineering: Lovelace | Sales: Hopper")

        #expect(try CLI.strata("update", document, hopper, "department=@Department/p1").status == 0)
        #expect(try Self.waitForList(list, "Engineering: Hopper,Lovelace", in: container.viewContext), "\(Self.sections(list))")
        #expect(log.lines.contains("move Hopper"), "\(log.lines)")

        _ = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing", "department=@Department/p2")
        #expect(try Self.waitForList(list, "Engineering: Hopper,Lovelace | Sales: Turing", in: container.viewContext), "\(Self.sections(list))")
        #expect(log.lines.contains("insert Turing"), "\(log.lines)")

        #expect(try CLI.strata("update", document, lovelace, "lastName=Byron").status == 0)
        #expect(try Self.waitForList(list, "Engineering: Byron,Hopper | Sales: Turing", in: container.viewContext), "\(Self.sections(list))")

        #expect(try CLI.strata("delete", document, hopper).status == 0)
        #expect(try Self.waitForList(list, "Engineering: Byron | Sales: Turing", in: container.viewContext), "\(Self.sections(list))")
        #expect(log.lines.contains { $0.hasPrefix("delete") }, "\(log.lines)")
        try container.close()
    }
}
