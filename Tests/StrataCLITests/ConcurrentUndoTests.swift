import Foundation
import Strata
import Testing

/// Undo and redo from several processes at once (issue 32, item 1; docs/SEMANTICS.md,
/// "Undo and redo across contexts and processes"): they behave as if they ran one after
/// the other, and no group is ever reverted twice.
@Suite(.serialized) struct ConcurrentUndo {
    /// The reproduction: two inserts, then two `strata undo` at once. Before, both printed
    /// `Undid Insert …` for the same group (12 of 15 trials) and one object remained.
    @Test func twoConcurrentUndosRevertTheLastTwoGroups() throws {
        let sandbox = try TemporaryDirectory()
        for round in 0..<6 {
            let document = try sandbox.employees("round\(round).strata")
            let before = try Self.departments(document)
            _ = try sandbox.insert(document, "Department", "name=a")
            _ = try sandbox.insert(document, "Department", "name=b")
            let undos = try CLI.runAll("strata", [["undo", document], ["undo", document]])
            #expect(undos.allSatisfy { $0.status == 0 }, "round \(round): \(undos.map(\.stderr))")
            #expect(Set(undos.map(\.stdout)) == ["Undid Insert Department\n"], "round \(round): \(undos.map(\.stdout))")
            #expect(try Self.departments(document) == before, "round \(round): two undos must revert both inserts")
            try Self.expectEachGroupRevertedOnce(document, round: round)
        }
    }

    /// Three undos at once after insert a, insert b, delete b: run one after the other they
    /// bring b back, remove it, and remove a. Before, 5 of 12 trials reverted one group twice.
    @Test func threeConcurrentUndosAfterInsertInsertDelete() throws {
        let sandbox = try TemporaryDirectory()
        for round in 0..<4 {
            let document = try sandbox.employees("round\(round).strata")
            let before = try Self.departments(document)
            _ = try sandbox.insert(document, "Department", "name=a")
            let b = try sandbox.insert(document, "Department", "name=b")
            let delete = try CLI.strata("delete", document, b)
            #expect(delete.status == 0, "\(delete.stderr)")
            let undos = try CLI.runAll("strata", Array(repeating: ["undo", document], count: 3))
            #expect(undos.allSatisfy { $0.status == 0 }, "round \(round): \(undos.map(\.stderr))")
            #expect(try Self.departments(document) == before, "round \(round)")
            try Self.expectEachGroupRevertedOnce(document, round: round)
            let redo = try CLI.strata("redo", document, "--steps", "3")
            #expect(redo.status == 0, "round \(round): \(redo.stderr)")
            #expect(try Self.departments(document) == before + ["a"], "round \(round)")
        }
    }

    /// Sixteen processes insert, undo and redo on the document's one shared history while a
    /// seventeenth compacts (keeping every segment): no step fails, every undo and redo a
    /// process printed is in the log exactly once, no group is reverted twice, and the
    /// document equals a sequential replay of its log (`strata-log verify`).
    @Test func sixteenProcessesUndoingAndRedoingWithACompactor() throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("shared.strata")
        try ManyWriters.makeDocument(document, departments: 1, projects: 1)
        let seed = testSeed("ConcurrentUndo.sixteen")
        let steps = ProcessInfo.processInfo.environment["STRATA_STRESS_OPERATIONS"].flatMap { Int($0) } ?? 12
        var arguments = (0..<16).map { ["shared-undo", document, "--name", "W\($0)", "--seed", String(seed &+ UInt64($0)), "--operations", String(steps)] }
        arguments.append(["compact", document, "--seed", String(seed), "--operations", "6", "--keep-history", "yes"])
        let results = try CLI.runAll("strata-stress-writer", arguments)
        for (index, result) in results.enumerated() {
            #expect(result.status == 0, "process \(index) (seed \(seed)): \(result.stderr)")
            #expect(!result.stdout.contains("failed:"), "process \(index) (seed \(seed)): \(result.stdout)")
        }
        let lines = results.dropLast().flatMap { $0.stdout.split(separator: "\n") }
        let reverts = lines.filter { $0.hasPrefix("undid ") || $0.hasPrefix("redid ") }.count
        let groups = try Self.groups(document)
        #expect(groups.filter { $0.revertsGroup != nil }.count == reverts, "seed \(seed): every acknowledged undo and redo once in the log")
        #expect(reverts > 0, "seed \(seed): no undo or redo ran")
        try Self.expectEachGroupRevertedOnce(document, round: 0)
        print("ConcurrentUndo: 16 processes × \(steps) steps: \(lines.filter { $0.hasPrefix("inserted") }.count) inserts, \(reverts) undos and redos, \(groups.count) groups in the log")
    }

    // MARK: Helpers

    static func departments(_ document: String) throws -> [String] {
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: document), configuration: readOnly)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: store.model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        return try context.fetch(FetchRequest(entityName: "Department"))
            .map { if case .string(let name) = try $0.value(forKey: "name") { name } else { "" } }.sorted()
    }

    static func groups(_ document: String) throws -> [ChangeGroupInfo] {
        let store = try DocumentStore(openingAt: URL(fileURLWithPath: document), configuration: readOnly)
        defer { try? store.close() }
        return try store.groupRecords().map(\.info)
    }

    static var readOnly: DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.isReadOnly = true
        return configuration
    }

    /// No group reverted twice in the log, and `strata-log verify` (which replays the log
    /// from empty and compares it with the document) passes.
    static func expectEachGroupRevertedOnce(_ document: String, round: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let targets = try groups(document).compactMap(\.revertsGroup)
        #expect(Set(targets).count == targets.count, "round \(round): a group was reverted twice: \(targets)", sourceLocation: sourceLocation)
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "round \(round): \(verify.stdout) \(verify.stderr)", sourceLocation: sourceLocation)
        #expect(verify.stdout.contains("each revert a group no other group reverts"), "\(verify.stdout)", sourceLocation: sourceLocation)
    }
}
