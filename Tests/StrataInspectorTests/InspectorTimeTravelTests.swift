import Foundation
import StrataInspectorCore
import Strata
import StrataTestSupport
import Testing

/// Time travel continues from the checkpoints earlier replays left, and a continued
/// replay shows what a replay from the first save (`strata-log replay`) shows.
@Suite struct InspectorTimeTravelTests {
    let directory: TemporaryDirectory
    let url: URL
    static let saves: UInt64 = 31

    /// Save 1 inserts 6 employees; saves 2…31 each change one salary, insert one employee
    /// (every fourth) or delete one (every seventh).
    init() throws {
        directory = try TemporaryDirectory()
        url = directory.file("travel.strata")
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        let context = stack.context
        let department = try context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        var people: [ManagedObject] = []
        func hire(_ index: Int) throws {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            try employee.setValue(.integer(Int64(index)), forKey: "salary")
            try employee.setObject(department, forKey: "department")
            people.append(employee)
        }
        for index in 0..<6 { try hire(index) }
        try context.save()
        for save in 2...Int(Self.saves) {
            if save % 7 == 0 {
                context.delete(people.removeFirst())
            } else if save % 4 == 0 {
                try hire(100 + save)
            } else {
                try people[save % people.count].setValue(.integer(Int64(10_000 + save)), forKey: "salary")
            }
            try context.save()
            if save == 20 { try stack.store.compact() }
        }
        try stack.store.close()
    }

    /// The employees with their values as of save `sequence`, as `/api/objects` shows them.
    private func rows(_ api: InspectorAPI, at sequence: UInt64) throws -> [String] {
        let answer = try api.get("/api/objects", ["entity": "Employee", "at": "\(sequence)", "limit": "500"])
        #expect(answer.status == 200, "\(answer.error ?? "")")
        // Each row as JSON with sorted keys, so that equal rows compare equal.
        return try #require(answer.json["rows"] as? [[String: Any]]).map { row in
            String(decoding: try JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    /// The same rows read from a whole replay made by `DocumentReplay` (as `strata-log replay`).
    private func replayedRows(at sequence: UInt64) throws -> [String] {
        let copy = directory.file("replay-\(sequence).strata")
        try DocumentReplay.replay(url, through: sequence, to: copy, overwrite: true)
        let document = try InspectorDocument(path: copy.path)
        defer { document.close() }
        return try rows(InspectorAPI(document: document), at: sequence)
    }

    @Test func aTravelContinuesFromTheNearestCheckpointAndShowsWhatAWholeReplayShows() throws {
        let document = try InspectorDocument(path: url.path, checkpointInterval: 5)
        defer { document.close() }
        let api = InspectorAPI(document: document)

        let far = try rows(api, at: 27)
        #expect(document.lastTravelReplayed == 27)   // the first travel replays from save 1
        #expect(far == (try replayedRows(at: 27)))

        for (target, appended) in [(12, 2), (25, 0), (3, 3), (19, 4), (30, 5)] as [(UInt64, UInt64)] {
            let shown = try rows(api, at: target)
            #expect(document.lastTravelReplayed == appended, "save \(target)")
            #expect(shown == (try replayedRows(at: target)), "save \(target)")
        }
    }

    @Test func aTravelBeforeAnyCheckpointReplaysFromTheFirstSave() throws {
        let document = try InspectorDocument(path: url.path, checkpointInterval: 50)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        let shown = try rows(api, at: 9)
        #expect(document.lastTravelReplayed == 9)
        #expect(shown == (try replayedRows(at: 9)))
        _ = try rows(api, at: 8)
        #expect(document.lastTravelReplayed == 8)
    }

    /// Waits (at most a minute) until the background preparation has ended.
    private func waitForPreparation(_ document: InspectorDocument) async throws -> InspectorTimeTravelProgress {
        for _ in 0..<600 {
            let progress = document.timeTravelProgress
            if progress.state != .preparing, progress.state != .off { return progress }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the preparation did not end within a minute")
        return document.timeTravelProgress
    }

    @Test func thePreparationLaysCheckpointsOverTheWholeHistorySoNoTravelReplaysFromTheStart() async throws {
        let document = try InspectorDocument(path: url.path, checkpointInterval: 5)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        #expect(try api.get("/api/document").json["timeTravel"].flatMap { ($0 as? [String: Any])?["state"] as? String } == "off")

        document.prepareTimeTravelInBackground()
        let progress = try await waitForPreparation(document)
        #expect(progress.state == .ready)
        #expect(progress.prepared == Self.saves && progress.last == Self.saves && progress.interval == 5)
        let served = try #require(try api.get("/api/document").json["timeTravel"] as? [String: Any])
        #expect(served["state"] as? String == "ready" && served["prepared"] as? Int == Int(Self.saves))

        // Every travel, the first one included, copies the checkpoint before it.
        for target in [27, 3, 12, 30, 19, 4] as [UInt64] {
            let shown = try rows(api, at: target)
            #expect(document.lastTravelReplayed == target % 5, "save \(target)")
            #expect(shown == (try replayedRows(at: target)), "save \(target)")
        }
    }

    @Test func closingStopsThePreparationAndAClosedDocumentAnswersNothing() async throws {
        let document = try InspectorDocument(path: url.path, checkpointInterval: 1)
        document.prepareTimeTravelInBackground()
        document.close()
        let state = document.timeTravelProgress.state
        #expect(state == .cancelled || state == .ready, "\(state)")
        #expect(InspectorAPI(document: document).answer(path: "/api/document", parameters: [:]).status == 503)
    }

    @Test func aMigratedDocumentIsNotPreparedAndItsTravelsReplayWhole() async throws {
        let (v1, v2) = try InspectorFixture.itemModels()
        let migrated = directory.file("items.strata")
        let stack = try DocumentStack.create(migrated, model: v1)
        for name in ["first", "second"] {
            try stack.context.insertObject(forEntityName: "Item").setValue(.string(name), forKey: "name")
            try stack.context.save()
        }
        try stack.store.close()
        try DocumentStore.migrate(at: migrated, to: v2)

        let document = try InspectorDocument(path: migrated.path, checkpointInterval: 1)
        defer { document.close() }
        document.prepareTimeTravelInBackground()
        #expect(try await waitForPreparation(document).state == .replaysWhole)
        let answer = try InspectorAPI(document: document).get("/api/objects", ["entity": "Item", "at": "1"])
        #expect(answer.status == 200 && (answer.json["rows"] as? [[String: Any]])?.count == 1)
        #expect(document.lastTravelReplayed == 1)
    }
}
