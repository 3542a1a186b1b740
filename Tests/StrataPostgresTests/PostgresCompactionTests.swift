import Foundation
import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// Every stored attribute and relationship of every object of the example model, one line
/// an object, in ID order: two stores that hold the same document give the same lines.
func everyObject(_ context: ManagedObjectContext) throws -> [String] {
    let keys = [
        "Employee": ["firstName", "lastName", "salary", "startDate", "employeeID", "email", "active", "rating", "bonus",
                     "badge", "homepage", "photo", "notes", "manager", "directReports", "department", "projects"],
        "Department": ["name", "budget", "employees"],
        "Project": ["name", "deadline", "members"],
    ]
    var lines: [String] = []
    for (entity, names) in keys.sorted(by: { $0.key < $1.key }) {
        let objects = try context.fetch(FetchRequest(entityName: entity)).sorted { $0.objectID < $1.objectID }
        for object in objects {
            let values = try names.map { name -> String in
                let value = try object.value(forKey: name)
                if case .objects = value { return "\(name)=\(value.objectIDs.sorted().map(\.description))" }
                return "\(name)=\(value)"
            }
            lines.append("\(object.objectID) \(values.joined(separator: " "))")
        }
    }
    return lines
}

/// A store that compacts only when told to (no automatic compaction, no listener).
func manualStack(_ name: String, create: Bool = true) throws -> PostgresStack {
    try PostgresStack(name, create: create, listens: false, serverCompactionThreshold: 0)
}

@Suite("PostgreSQL document: snapshot tables on the server and compaction")
struct PostgresCompactionTests {
    @Test func aStoreOpeningAfterCompactionLoadsTheSnapshotReplaysOnlyTheTailAndSeesWhatAFullReplaySees() throws {
        let name = uniqueDocumentName("snapshot")
        let writer = try manualStack(name)
        defer { writer.close() }
        // Opened before any snapshot exists: it replays (and then follows) the whole log.
        let full = try manualStack(name, create: false)
        defer { full.close() }
        #expect(full.store.openedFromServerSnapshot == nil)
        var editor = RandomEditor(context: writer.context, seed: 22)
        for _ in 0..<40 {
            for _ in 0..<4 { try editor.step() }
            try editor.save()
        }
        let report = try writer.store.compact()
        #expect(report.outcome == .compacted)
        let through = try #require(report.snapshotSequence)
        #expect(try writer.store.serverSnapshotSequence() == through)
        #expect(report.rows > 0)
        for _ in 0..<5 {
            try hire("Tail", writer.context)
            try writer.context.save()
        }

        let fresh = try manualStack(name, create: false)
        defer { fresh.close() }
        #expect(fresh.store.openedFromServerSnapshot == through)
        #expect(fresh.store.segmentsReplayedOnOpen == 5)
        try full.store.catchUp()
        let expected = try everyObject(full.newContext())
        #expect(expected.count > 10)
        #expect(try everyObject(fresh.newContext()) == expected)
        #expect(try everyObject(writer.newContext()) == expected)
        // Real tables with real rows: one row per stored Employee, Department and Project.
        let counts = try fresh.store.serverSnapshotRowCounts()
        let snapshotContext = full.newContext()
        #expect(counts["Person"] == (try snapshotContext.count(for: FetchRequest(entityName: "Employee"))) - 5)
        #expect(counts["Department"] == (try snapshotContext.count(for: FetchRequest(entityName: "Department"))))
        #expect(counts.keys.contains("Employee_projects"))
    }

    @Test func aSaveAfterCompactionAndADeleteOfASnapshotRecordSurviveAReopenAndTheNextCompaction() throws {
        let name = uniqueDocumentName("after")
        let one = try manualStack(name)
        let research = try department("Research", one.context)
        let lovelace = try hire("Lovelace", salary: 100, in: research, one.context)
        try hire("Hopper", salary: 200, in: research, one.context)
        try one.context.save()
        #expect(try one.store.compact().outcome == .compacted)
        try lovelace.setValue(.integer(300), forKey: "salary")
        one.context.delete(try #require(try one.context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "lastName == 'Hopper'"))).first))
        try hire("Turing", in: research, one.context)
        try one.context.save()
        let expected = try everyObject(one.newContext())
        one.close()

        let two = try manualStack(name, create: false)
        #expect(two.store.segmentsReplayedOnOpen == 1)
        #expect(try lastNames(two.context) == ["Lovelace", "Turing"])
        #expect(try everyObject(two.newContext()) == expected)
        // New keys stay above every key of the snapshot: no collision with Lovelace's.
        let fresh = try hire("Liskov", in: nil, two.context)
        try two.context.save()
        #expect(fresh.objectID.primaryKey > lovelace.objectID.primaryKey)
        #expect(try two.store.compact().outcome == .compacted)
        #expect(try two.store.compact().outcome == .upToDate)
        let after = try everyObject(two.newContext())
        two.close()

        let three = try manualStack(name, create: false)
        defer { three.close() }
        #expect(three.store.segmentsReplayedOnOpen == 0)
        #expect(try everyObject(three.newContext()) == after)
        #expect(try lastNames(three.context) == ["Liskov", "Lovelace", "Turing"])
    }

    @Test func whileACompactionIsInItsTransactionAnotherStoreSavesAndASecondCompactorSkips() throws {
        let name = uniqueDocumentName("concurrent")
        let compactor = try manualStack(name)
        defer { compactor.close() }
        for index in 0..<10 { try hire("Before\(index)", compactor.context) }
        try compactor.context.save()
        let writer = try manualStack(name, create: false)
        defer { writer.close() }
        let other = try manualStack(name, create: false)
        defer { other.close() }

        let saved = Locked<Result<Void, any Error>?>(nil)
        let second = Locked<PostgresCompactionReport?>(nil)
        PostgresDocumentStore.compactionHooks.withLock {
            $0[name] = {
                // Inside the compaction's transaction, before its COMMIT: a save in another
                // store must not wait for it (a bounded wait, so a blocked save fails the
                // test instead of hanging it) ...
                let thread = Thread {
                    saved.withLock { $0 = Result { try hire("During", writer.context); try writer.context.save() } }
                }
                thread.start()
                _ = eventually { saved.withLock { $0 != nil } }
                // ... and a second compactor skips at once.
                second.withLock { $0 = try? other.store.compact() }
            }
        }
        let report = try compactor.store.compact()
        #expect(report.outcome == .compacted)
        let outcome = try #require(saved.withLock { $0 })
        #expect(throws: Never.self) { try outcome.get() }
        #expect(second.withLock { $0?.outcome } == .skippedAnotherCompactor)

        let fresh = try manualStack(name, create: false)
        defer { fresh.close() }
        #expect(fresh.store.openedFromServerSnapshot == report.snapshotSequence)
        #expect(fresh.store.segmentsReplayedOnOpen == 1)
        #expect(try lastNames(fresh.context, "lastName == 'During'") == ["During"])
        #expect(try fresh.context.count(for: FetchRequest(entityName: "Employee")) == 11)
    }

    @Test func writersSavingWhileAnotherStoreCompactsRepeatedlyLoseNothing() throws {
        let name = uniqueDocumentName("writers")
        let compactor = try manualStack(name)
        defer { compactor.close() }
        let writers = try (0..<2).map { _ in try manualStack(name, create: false) }
        defer { writers.forEach { $0.close() } }
        let failures = Locked<[String]>([])
        let done = Locked(0)
        for (number, stack) in writers.enumerated() {
            Thread {
                for index in 0..<15 {
                    do {
                        try hire("W\(number)-\(index)", stack.context)
                        try stack.context.save()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                done.withLock { $0 += 1 }
            }.start()
        }
        var compactions = 0
        while done.withLock({ $0 }) < writers.count {
            try compactor.store.catchUp()
            let outcome = try compactor.store.compact().outcome
            #expect(outcome != .skippedAnotherCompactor)
            compactions += 1
        }
        try compactor.store.catchUp()
        try compactor.store.compact()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(compactions >= 1)

        let fresh = try manualStack(name, create: false)
        defer { fresh.close() }
        #expect(fresh.store.segmentsReplayedOnOpen == 0)
        let expected = (0..<2).flatMap { number in (0..<15).map { "W\(number)-\($0)" } }.sorted()
        #expect(try lastNames(fresh.context) == expected)
        #expect(try everyObject(fresh.newContext()) == everyObject(compactor.newContext()))
    }

    @Test func aSaveThatPassesTheThresholdCompactsOnTheServerInTheBackground() throws {
        let name = uniqueDocumentName("automatic")
        let one = try PostgresStack(name, listens: false, serverCompactionThreshold: 5)
        defer { one.close() }
        for index in 0..<4 {
            try hire("E\(index)", one.context)
            try one.context.save()
        }
        #expect(try one.store.serverSnapshotSequence() == nil)
        try hire("E4", one.context)
        try one.context.save()
        // Polled: the compaction runs after the save returned.
        #expect(try eventually { try one.store.serverSnapshotSequence() == 5 })
        let two = try manualStack(name, create: false)
        defer { two.close() }
        #expect(two.store.openedFromServerSnapshot == 5)
        #expect(two.store.segmentsReplayedOnOpen == 0)
        #expect(try lastNames(two.context) == ["E0", "E1", "E2", "E3", "E4"])
    }

    @Test func aSnapshotTableWhoseColumnNoLongerHoldsItsTypeIsAnErrorNamingTableAndColumn() throws {
        let name = uniqueDocumentName("damaged")
        let one = try manualStack(name)
        defer { one.close() }
        let research = try department("Research", one.context)
        try research.setValue(.decimal(Decimal(string: "12.5")!), forKey: "budget")
        try one.context.save()
        #expect(try one.store.compact().outcome == .compacted)
        // Someone changes the server's table by hand (psql, PostgreSQL's own client).
        let url = try PostgresTestServer.url
        let schema = try runProcess("/usr/bin/psql", [url, "-At", "-v", "ON_ERROR_STOP=1", "-c", """
            SELECT schema_name FROM strata_snapshots s JOIN strata_documents d ON d.id = s.document WHERE d.name = '\(name)'
            """])
        #expect(schema.status == 0, "\(schema.error)")
        let altered = try runProcess("/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-c", """
            ALTER TABLE \(schema.output.trimmingCharacters(in: .whitespacesAndNewlines)).\"Department\" \
            ALTER COLUMN budget TYPE BYTEA USING convert_to(budget, 'UTF8')
            """])
        #expect(altered.status == 0, "\(altered.error)")

        let error = try #require(throws: StrataError.self) { try manualStack(name, create: false) }
        #expect(error.code == .corruptDocument)
        #expect(error.message.contains("'budget'") && error.message.contains("'Department'"))
        #expect(error.context.table == "Department")
    }
}
