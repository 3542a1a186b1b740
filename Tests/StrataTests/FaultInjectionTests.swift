import Foundation
import Testing
@testable import Strata

// Every failure point of a save, a compaction, an import, an undo and a recovery
// (docs/RELIABILITY.md, "Faults and kills"). Serialized: the fault VFS watches one
// directory at a time. STRATA_FAULT_FULL=1 runs bigger documents.

private let full = ProcessInfo.processInfo.environment["STRATA_FAULT_FULL"] == "1"

/// Opens the document without compaction on close, runs `body`, and closes it whatever
/// happens (a failed close after a failed body is not the error reported).
private func withStack(_ url: URL, _ acknowledgement: Acknowledgement, _ body: (DocumentStack) throws -> Void) throws {
    let stack = try DocumentStack.open(url, configuration: manualCompaction())
    do {
        try body(stack)
    } catch {
        acknowledgement.refuse(error)
        try? stack.store.close()
        throw error
    }
    try stack.store.close()
}

/// A document of `departments` departments with `perDepartment` employees each, saved
/// in `saves` saves, closed without compaction (so its log has work for a compaction).
private func staffDocument(_ url: URL, departments: Int, perDepartment: Int, saves: Int) throws {
    let stack = try DocumentStack.create(url, configuration: manualCompaction())
    for save in 0..<saves {
        for number in 0..<departments {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("D\(save)-\(number)"), forKey: "name")
            for person in 0..<perDepartment {
                let employee = try stack.context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("E\(person)"), forKey: "firstName")
                try employee.setValue(.string("S\(save)-\(number)"), forKey: "lastName")
                try employee.setValue(.integer(Int64(1_000 * person)), forKey: "salary")
                try employee.setObject(department, forKey: "department")
            }
        }
        stack.undo.setActionName("Hire \(save)")
        try stack.context.save()
    }
    try stack.store.close()
}

private func fetchAll(_ context: ManagedObjectContext, _ entity: String) throws -> [ManagedObject] {
    try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor("lastName", ascending: true)]))
        .sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
}

private let scale = full ? 25 : 1

@Suite(.serialized) struct FaultInjection {
    /// A context save with inserts, updates, deletes and relationship changes.
    @Test func everyFailurePointOfASave() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "save",
            prepare: { try staffDocument($0, departments: 2, perDepartment: 2 * scale, saves: 2) },
            perform: { url, acknowledgement in
                try withStack(url, acknowledgement) { stack in
                    let employees = try fetchAll(stack.context, "Employee")
                    let departments = try stack.context.fetch(FetchRequest(entityName: "Department"))
                    let newcomer = try stack.context.insertObject(forEntityName: "Employee")
                    try newcomer.setValue("Grace", forKey: "firstName")
                    try newcomer.setValue("Hopper", forKey: "lastName")
                    try newcomer.setObject(departments[0], forKey: "department")
                    try employees[0].setValue(.integer(99_000), forKey: "salary")
                    try employees[1].setObject(departments[1], forKey: "department")
                    stack.context.delete(employees[2])
                    stack.undo.setActionName("Reorganize")
                    try acknowledgement.retryingOnce { try stack.context.save() }
                }
            }))
        #expect(tally.counts.syncs > 0 && tally.counts.writes > 0)
    }

    /// A compaction of several saves into the snapshot tables.
    @Test func everyFailurePointOfACompaction() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "compaction",
            prepare: { try staffDocument($0, departments: 2, perDepartment: 2 * scale, saves: 3) },
            perform: { url, acknowledgement in
                try withStack(url, acknowledgement) { stack in
                    try acknowledgement.retryingOnce { _ = try stack.store.compact() }
                }
            }))
        #expect(tally.counts.syncs > 0)
    }

    /// A compaction that drops the indexes of the tables it fills and creates them again
    /// (as a bulk fold into an empty snapshot does), all in its one transaction.
    @Test func everyFailurePointOfACompactionThatRebuildsIndexes() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "compaction rebuilding indexes",
            prepare: { try staffDocument($0, departments: 2, perDepartment: 2 * scale, saves: 2) },
            perform: { url, acknowledgement in
                var configuration = manualCompaction()
                configuration.indexRebuildMinimumRows = 1
                let stack = try DocumentStack.open(url, configuration: configuration)
                do {
                    try acknowledgement.retryingOnce { _ = try stack.store.compact() }
                } catch {
                    acknowledgement.refuse(error)
                    try? stack.store.close()
                    throw error
                }
                try stack.store.close()
            },
            checkFiles: { url in
                // Whatever happened, the indexes are all there and hold every row.
                // (Employee's rows are in its hierarchy's table, Person, with five indexes.)
                let indexes = try sqlRows(url, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Person' AND sql IS NOT NULL")
                guard indexes == [[.integer(5)]], try sqlRows(url, "PRAGMA integrity_check") == [[.text("ok")]] else {
                    throw StrataError(.corruptDocument, "Person's indexes: \(indexes), integrity: \(try sqlRows(url, "PRAGMA integrity_check"))")
                }
            }))
        #expect(tally.counts.syncs > 0)
    }

    /// A bulk save over the operation threshold, folded into the snapshot right after it
    /// in the same process: a failure or kill inside that compaction keeps the save.
    @Test func everyFailurePointOfABulkSaveAndTheCompactionAfterIt() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "bulk save + compaction",
            prepare: { try staffDocument($0, departments: 1, perDepartment: 2 * scale, saves: 1) },
            perform: { url, acknowledgement in
                var configuration = manualCompaction()
                configuration.compactionOperationThreshold = 10
                let stack = try DocumentStack.open(url, configuration: configuration)
                do {
                    let department = try #require(try stack.context.fetch(FetchRequest(entityName: "Department")).first)
                    for person in 0..<(12 * scale) {
                        let employee = try stack.context.insertObject(forEntityName: "Employee")
                        try employee.setValue(.string("Bulk\(person)"), forKey: "firstName")
                        try employee.setValue(.string("Import"), forKey: "lastName")
                        try employee.setObject(department, forKey: "department")
                    }
                    stack.undo.setActionName("Bulk")
                    try acknowledgement.retryingOnce { try stack.context.save() }
                } catch {
                    acknowledgement.refuse(error)
                    try? stack.store.close()
                    throw error
                }
                try stack.store.close()
            },
            compactsAfterwards: true))
        #expect(tally.counts.syncs > 0)
    }

    /// An import as `strata import` makes it: every object inserted, then related, then
    /// one save as one undo group.
    @Test func everyFailurePointOfAnImport() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "import",
            prepare: { try staffDocument($0, departments: 1, perDepartment: 1, saves: 1) },
            perform: { url, acknowledgement in
                try withStack(url, acknowledgement) { stack in
                    var departments: [ManagedObject] = []
                    for number in 0..<(20 * scale) {
                        let department = try stack.context.insertObject(forEntityName: "Department")
                        try department.setValue(.string("Imported \(number)"), forKey: "name")
                        departments.append(department)
                    }
                    for number in 0..<(60 * scale) {
                        let employee = try stack.context.insertObject(forEntityName: "Employee")
                        try employee.setValue(.string("First \(number)"), forKey: "firstName")
                        try employee.setValue(.string("Last \(number) " + String(repeating: "x", count: 40)), forKey: "lastName")
                        try employee.setObject(departments[number % departments.count], forKey: "department")
                    }
                    stack.undo.setActionName("Import Employee")
                    try acknowledgement.retryingOnce { try stack.context.save() }
                }
            }))
        #expect(tally.counts.growingWrites > 0)
    }

    /// An undo of the last saved group after reopening, then its save.
    @Test func everyFailurePointOfAnUndoAndItsSave() throws {
        let tally = try enumerateFaults(FaultOperation(
            name: "undo",
            prepare: { try staffDocument($0, departments: 2, perDepartment: 2 * scale, saves: 3) },
            perform: { url, acknowledgement in
                try withStack(url, acknowledgement) { stack in
                    try stack.context.restoreUndoHistory()
                    try stack.undo.undo()
                    try acknowledgement.retryingOnce { try stack.context.save() }
                }
            }))
        #expect(tally.counts.syncs > 0)
    }
}
