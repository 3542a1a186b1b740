import Foundation
import Testing
@testable import Strata

/// The document's bytes: the main file and the WAL (the shared-memory index is left out:
/// readers change it).
private func documentBytes(_ url: URL) -> [Data?] {
    ["", "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: url.path + $0)) }
}

private func segmentTable(_ store: DocumentStore) throws -> [SegmentRecord] { try store.segmentRecords() }

private func newEmployee(_ first: String, in context: ManagedObjectContext) throws -> ManagedObject {
    let employee = try context.insertObject(forEntityName: "Employee")
    try employee.setValue(.string(first), forKey: "firstName")
    try employee.setValue("X", forKey: "lastName")
    return employee
}

@Suite struct DocumentFiles {
    @Test func aClosedDocumentIsOneFileAndSoIsAReleasedOne() throws {
        let directory = try TemporaryDirectory()
        let closed = directory.file("closed.strata")
        do {
            let stack = try DocumentStack.create(closed)
            let ada = try newEmployee("Ada", in: stack.context)
            try stack.context.save()
            #expect(FileManager.default.fileExists(atPath: closed.path + "-wal"), "open documents use a WAL")
            try stack.store.close()
            #expect(strataError { _ = try stack.store.values(for: ada.objectID) }?.code == .invalidArgument)
        }
        let released = directory.file("released.strata")
        do {
            let stack = try DocumentStack.create(released)
            _ = try newEmployee("Ada", in: stack.context)
            try stack.context.save()
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(files == ["closed.strata", "released.strata"])
    }

    @Test func theSqlite3ToolReadsTheSnapshotTablesAndTheMetadata() throws {
        let tool = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: tool), "sqlite3 is not installed at \(tool)")
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url)
        let ada = try newEmployee("Ada", in: stack.context)
        try ada.setValue(.integer(100), forKey: "salary")
        try ada.setValue(.decimal(Decimal(string: "1234.5")!), forKey: "bonus")
        let engine = try insertNamed("Project", "Engine", in: stack.context)
        try ada.mutableSetValue(forKey: "projects").add(engine)
        let research = try insertNamed("Department", "Research", in: stack.context)
        try ada.setObject(research, forKey: "department")
        try stack.context.save()
        let identifier = stack.store.identifier
        try stack.store.close()

        func query(_ sql: String) throws -> String {
            let result = try runProcess(tool, ["-readonly", url.path, sql])
            #expect(result.status == 0, "\(sql): \(result.error)")
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try query("SELECT firstName, lastName, salary, bonus, department FROM Person") == "Ada|X|100|1234.5|1")
        #expect(try query("SELECT e.name FROM Person p JOIN strata_entity e ON e.id = p._entity") == "Employee")
        #expect(try query("SELECT name FROM Department") == "Research")
        #expect(try query("SELECT source, source_entity, destination FROM Employee_projects") == "1|1|1")
        #expect(try query("SELECT value FROM strata_meta WHERE key = 'format'") == "strata-document")
        #expect(try query("SELECT value FROM strata_meta WHERE key = 'storeIdentifier'") == identifier)
        #expect(try query("SELECT value FROM strata_meta WHERE key = 'compactedThrough'") == "1")
        #expect(try query("SELECT value FROM strata_meta WHERE key = 'modelHash'") == sharedExampleModel.versionHash)
        #expect(try query("SELECT seq, groups, operations > 0, length(body) > 0 FROM strata_segment") == "1|1|1|1")
        #expect(try query("PRAGMA journal_mode") == "wal")   // recorded in the header; no -wal file once closed
        let integrity = try query("PRAGMA integrity_check")
        #expect(integrity == "ok", "\(integrity)")
    }

    @Test func aWriterHeldBeyondTheBusyTimeoutFailsTheSaveWithDocumentBusyAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var configuration = manualCompaction()
        configuration.busyTimeout = 0.2
        let stack = try DocumentStack.create(url, configuration: configuration)
        _ = try newEmployee("First", in: stack.context)
        try stack.context.save()
        let before = documentBytes(url)
        let segments = try segmentTable(stack.store)

        let other = try SQLiteConnection(path: url.path, busyTimeout: 0)
        try other.execute("BEGIN IMMEDIATE")
        let pending = try newEmployee("Second", in: stack.context)
        let start = Date()
        let error = strataError { try stack.context.save() }
        let waited = Date().timeIntervalSince(start)
        #expect(error?.code == .documentBusy, "\(String(describing: error))")
        #expect(waited >= 0.15, "the save waited \(waited) s, not the busy timeout")
        #expect(waited < 3)
        #expect(pending.objectID.isTemporaryID && pending.isInserted, "the context is as before the save")
        #expect(documentBytes(url) == before)
        #expect(try segmentTable(stack.store) == segments)

        try other.execute("ROLLBACK")
        other.close()
        try stack.context.save()
        #expect(!pending.objectID.isTemporaryID)
        #expect(try stack.store.segmentRecords().count == 2)
        #expect(try stack.store.objectIDs(for: pending.entity, includingSubentities: false).count == 2)
    }

    @Test func savesFromTwoStoresOnOneFileBothLandAndTheSecondCatchesUpWithTheFirst() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try DocumentStack.create(url).store.close()
        let first = try DocumentStack.open(url, configuration: manualCompaction())
        let second = try DocumentStack.open(url, configuration: manualCompaction())

        let ada = try newEmployee("Ada", in: first.context)
        try first.context.save()
        #expect(try second.store.values(for: ada.objectID) == nil, "not read yet")
        let alan = try newEmployee("Alan", in: second.context)
        let research = try insertNamed("Department", "Research", in: second.context)
        try alan.setObject(research, forKey: "department")
        try second.context.save()
        #expect(alan.objectID != ada.objectID, "keys are not handed out twice across stores")
        #expect(try second.store.values(for: ada.objectID) != nil, "the second store took in the first's segment")
        #expect(try second.store.logPosition.last == 2)

        // The first store sees the second's save at its next write or refresh.
        let touched = try first.store.refreshFromLog()
        #expect(touched.contains(alan.objectID) && touched.contains(research.objectID))
        let grace = try newEmployee("Grace", in: first.context)
        try first.context.save()
        #expect(Set([ada, alan, grace].map(\.objectID.primaryKey)).count == 3)
        try first.store.close()
        try second.store.close()

        let reopened = try DocumentStack.open(url)
        let names = try reopened.store.objectIDs(for: ada.entity, includingSubentities: false)
            .map { try reopened.context.existingObject(with: $0).string("firstName") ?? "?" }
        #expect(names.sorted() == ["Ada", "Alan", "Grace"])
        #expect(try reopened.object(alan.objectID.uriRepresentation()).related("department")?.string("name") == "Research")
        try reopened.store.close()
    }

    @Test func twoStoresChangingTheSameRecordMakeTheLaterSaveAMergeConflict() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (uri, first, second) = try DocumentStack.twoConnections(url) { stack in
            let ada = try newEmployee("Ada", in: stack.context)
            try stack.context.save()
            return ada.objectID.uriRepresentation()
        }
        let adaFirst = try first.object(uri)
        let adaSecond = try second.object(uri)
        try adaFirst.setValue(.integer(100), forKey: "salary")
        try first.context.save()
        try adaSecond.setValue(.integer(999), forKey: "salary")
        let segments = try sqlRows(url, "SELECT seq FROM strata_segment")
        let error = strataError { try second.context.save() }
        #expect(error?.code == .mergeConflict, "\(String(describing: error))")
        #expect(error?.context.objects.contains(adaSecond.objectID.description) == true)
        #expect(try sqlRows(url, "SELECT seq FROM strata_segment") == segments, "the refused save wrote nothing")
        #expect(adaSecond.hasChanges, "the context keeps its change for the application to resolve")
        // A store that saves a different record does not conflict.
        let other = try newEmployee("Other", in: first.context)
        try first.context.save()
        #expect(!other.objectID.isTemporaryID)
        try first.store.close()
        try second.store.close()
        let reopened = try DocumentStack.open(url)
        #expect(try reopened.object(uri).int("salary") == 100)
        try reopened.store.close()
    }
}

@Suite struct DocumentFailedSave {
    @Test func aSaveRefusedByValidationLeavesTheFileExactlyAsBefore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let ada = try newEmployee("Ada", in: stack.context)
        try stack.context.save()
        let before = documentBytes(url)
        let segments = try segmentTable(stack.store)
        try ada.setValue(.integer(-5), forKey: "salary")          // below minValue 0
        _ = try stack.context.insertObject(forEntityName: "Employee")   // no names
        let error = strataError { try stack.context.save() }
        #expect(error?.code == .validation)
        #expect(error?.problems.count == 3, "\(String(describing: error))")
        #expect(documentBytes(url) == before)
        #expect(try segmentTable(stack.store) == segments)
        #expect(try stack.store.values(for: ada.objectID)?[ada.slot("salary")] == .null)
    }

    @Test func aSaveThatFailsInsideTheTransactionLeavesTheFileAsBeforeAndCanBeRetried() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let ada = try newEmployee("Ada", in: stack.context)
        try stack.context.save()
        // A trigger that fails the segment insert: the write fails after the store has read
        // the log and computed the new rows, as a full disk would.
        do {
            let saboteur = try SQLiteConnection(path: url.path)
            try saboteur.execute("CREATE TRIGGER strata_test_fail BEFORE INSERT ON strata_segment BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END")
            saboteur.close()
        }
        let before = documentBytes(url)
        let segments = try segmentTable(stack.store)
        let position = try stack.store.logPosition
        try ada.setValue(.integer(300), forKey: "salary")
        let grace = try newEmployee("Grace", in: stack.context)
        let error = strataError { try stack.context.save() }
        #expect(error?.code == .sqlite, "\(String(describing: error))")
        #expect(error?.message.contains("disk full (simulated)") == true)
        #expect(documentBytes(url) == before)
        #expect(try segmentTable(stack.store) == segments)
        #expect(try stack.store.logPosition == position)
        #expect(try stack.store.values(for: ada.objectID)?[ada.slot("salary")] == .null, "the overlay did not take the failed save")
        #expect(grace.objectID.isTemporaryID && stack.context.hasChanges)

        do {
            let repair = try SQLiteConnection(path: url.path)
            try repair.execute("DROP TRIGGER strata_test_fail")
            repair.close()
        }
        try stack.context.save()
        #expect(try stack.store.values(for: ada.objectID)?[ada.slot("salary")] == .integer(300))
        #expect(try stack.store.values(for: grace.objectID) != nil)
        #expect(grace.objectID.primaryKey > ada.objectID.primaryKey)
        try stack.store.close()
        let reopened = try DocumentStack.open(url)
        #expect(try reopened.object(ada.objectID.uriRepresentation()).int("salary") == 300)
        try reopened.store.close()
    }

    @Test func aSaveIntoAClosedStoreFailsAndTheFileStaysAsClosed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url)
        let ada = try newEmployee("Ada", in: stack.context)
        try stack.context.save()
        try stack.store.close()
        let before = documentBytes(url)
        try ada.setValue(.integer(1), forKey: "salary")
        let error = strataError { try stack.context.save() }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("closed") == true)
        #expect(documentBytes(url) == before)
        #expect(ada.hasChanges)
    }

    @Test func aSaveIntoAReadOnlyFileFailsAndLeavesItUnchanged() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try DocumentStack.create(url).store.close()
        let stack = try DocumentStack.open(url)
        _ = try newEmployee("Ada", in: stack.context)
        try stack.context.save()
        try stack.store.close()
        // Root ignores file modes, so make the database itself refuse writes.
        let stack2 = try DocumentStack.open(url, configuration: manualCompaction())
        let before = documentBytes(url)
        try stack2.store.withOpenState { try $0.connection.execute("PRAGMA query_only = ON") }
        _ = try newEmployee("Grace", in: stack2.context)
        let error = strataError { try stack2.context.save() }
        #expect(error?.code == .sqlite, "\(String(describing: error))")
        #expect(stack2.context.hasChanges)
        #expect(documentBytes(url) == before)
        try stack2.store.withOpenState { try $0.connection.execute("PRAGMA query_only = OFF") }
        try stack2.context.save()
        try stack2.store.close()
    }
}
