#if STRATA_BENCH_INSPECTOR
import Foundation
import Strata
import StrataInspectorCore

/// `strata-benchmarks inspector [--quick] [--data DIR]`: the inspector's requests on big
/// documents (docs/INSPECTOR.md, "Figures"; issue target: each ≤ 100 ms), answered in
/// process by `StrataInspectorCore` (the JSON each endpoint serves, without HTTP).
///
/// Two documents, built once and kept under the data folder (`.build-bench/data`):
/// - W1's model with 1,000,000 employees (`--quick`: 20,000) from one batch insert,
///   compacted: the first page of the objects table (with its count, then with the count
///   remembered), sorted pages, a page half-way down sought by key, and for comparison the
///   same page by OFFSET;
/// - 1,000 employees then 99,999 saves of one salary each (`--quick`: 2,000 saves),
///   compacted with the whole log kept: a jump to a save (its changes, and the timeline page
///   around it) and time travel: with nothing prepared (the first replay, from save 1), the
///   background preparation `strata-inspector` starts on opening, and travels after it.
/// Each request runs `repetitions` times; the table gives the median and the slowest.
enum InspectorWorkload {
    static let repetitions = 5

    static func main(quick: Bool) throws {
        let objects = quick ? 20_000 : 1_000_000
        let saves = quick ? 2_000 : 100_000
        let arguments = CommandLine.arguments
        let data = URL(fileURLWithPath: arguments.firstIndex(of: "--data").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
            ?? ".build-bench/data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let big = data.appendingPathComponent("inspector-objects-\(objects).strata")
        let history = data.appendingPathComponent("inspector-history-\(saves).strata")
        if !FileManager.default.fileExists(atPath: big.path) { try buildObjects(big, count: objects) }
        if !FileManager.default.fileExists(atPath: history.path) { try buildHistory(history, saves: saves) }
        var rows: [(String, [Double])] = []
        try objectRequests(big, count: objects, into: &rows)
        try historyRequests(history, saves: saves, into: &rows)
        print("| request | median ms | slowest ms |")
        print("| --- | ---: | ---: |")
        for (name, times) in rows {
            let sorted = times.sorted()
            print("| \(name) | \(format(sorted[sorted.count / 2])) | \(format(sorted.last ?? 0)) |")
        }
    }

    // MARK: Requests

    private static func objectRequests(_ url: URL, count: Int, into rows: inout [(String, [Double])]) throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        rows.append(("\(count) objects: first page of 50 with the count (first request)", [try time(api, "/api/objects", ["entity": "Employee"])]))
        rows.append(("\(count) objects: first page, count remembered", try times(api, "/api/objects", ["entity": "Employee"])))
        rows.append(("\(count) objects: first page sorted by salary (indexed), descending", try times(api, "/api/objects", ["entity": "Employee", "sort": "salary:desc"])))
        rows.append(("\(count) objects: first page sorted by lastName (indexed)", try times(api, "/api/objects", ["entity": "Employee", "sort": "lastName"])))
        rows.append(("\(count) objects: entities with counts (/api/document)", try times(api, "/api/document", [:])))
        // A row half-way down, whose page after it is sought by key.
        let middle = try answer(api, "/api/objects", ["entity": "Employee", "where": "employeeID == \(count / 2)"])
        guard let found = middle["rows"] as? [[String: Any]], let ref = found.first?["ref"] as? String else {
            throw StrataError(.invalidArgument, "inspector benchmark: employee \(count / 2) not found")
        }
        rows.append(("\(count) objects: the page after row \(count / 2), by key (pk order)", try times(api, "/api/objects", ["entity": "Employee", "after": ref])))
        rows.append(("\(count) objects: the page after row \(count / 2), by key, sorted by lastName", try times(api, "/api/objects", ["entity": "Employee", "after": ref, "sort": "lastName"])))
        rows.append(("\(count) objects: the page at offset \(count / 2) by OFFSET (for comparison)", [try time(api, "/api/objects", ["entity": "Employee", "offset": "\(count / 2)", "sort": "lastName"])]))
    }

    private static func historyRequests(_ url: URL, saves: Int, into rows: inout [(String, [Double])]) throws {
        let document = try InspectorDocument(path: url.path)
        defer { document.close() }
        let api = InspectorAPI(document: document)
        var random = SystemRandomNumberGenerator()
        let targets = (0..<repetitions).map { _ in UInt64.random(in: 2...UInt64(saves - 1), using: &random) }
        rows.append(("\(saves) saves: a jump to a save (/api/save)", try targets.map { try time(api, "/api/save", ["sequence": "\($0)"]) }))
        rows.append(("\(saves) saves: the timeline page at a save", try targets.map { try time(api, "/api/timeline", ["before": "\($0 + 1)"]) }))
        rows.append(("\(saves) saves: the newest timeline page", try times(api, "/api/timeline", [:])))
        // Time travel without the background preparation: the first travel replays from save 1.
        let cold = UInt64(saves - 7)
        rows.append(("\(saves) saves: time travel to save \(cold) with nothing prepared (replays \(cold) saves, folded)", [try time(api, "/api/objects", ["entity": "Employee", "at": "\(cold)"])]))
        // As `strata-inspector` opens a document: checkpoints laid in the background, then
        // every travel (the first one to each save) copies one.
        let opening = Clock.now
        let prepared = try InspectorDocument(path: url.path)
        defer { prepared.close() }
        rows.append(("\(saves) saves: opening the document (the history check reads every folded segment once)", [Clock.seconds(since: opening) * 1000]))
        let preparedAPI = InspectorAPI(document: prepared)
        let start = Clock.now
        prepared.prepareTimeTravelInBackground()
        while [.preparing, .off].contains(prepared.timeTravelProgress.state) { Thread.sleep(forTimeInterval: 0.01) }
        let progress = prepared.timeTravelProgress
        guard progress.state == .ready else {
            throw StrataError(.invalidArgument, "inspector benchmark: the preparation ended \(progress.state.rawValue): \(progress.message ?? "")")
        }
        rows.append(("\(saves) saves: preparing time travel in the background after opening (a checkpoint every \(progress.interval) saves)", [Clock.seconds(since: start) * 1000]))
        var warm: [Double] = []
        var appended: [UInt64] = []
        for target in targets {
            warm.append(try time(preparedAPI, "/api/objects", ["entity": "Employee", "at": "\(target)"]))
            appended.append(prepared.lastTravelReplayed)
        }
        rows.append(("\(saves) saves: time travel to a save, prepared (a checkpoint copied, \(appended.min() ?? 0)–\(appended.max() ?? 0) saves appended)", warm))
        // The last save travelled to is still open (the last four are kept).
        let open = targets.last ?? cold
        rows.append(("\(saves) saves: a travelled save's next page (already open)", try times(preparedAPI, "/api/objects", ["entity": "Employee", "at": "\(open)", "offset": "50"])))
    }

    private static func times(_ api: InspectorAPI, _ path: String, _ parameters: [String: String]) throws -> [Double] {
        try (0..<repetitions).map { _ in try time(api, path, parameters) }
    }

    /// Milliseconds one answer took; a non-200 answer stops the benchmark.
    private static func time(_ api: InspectorAPI, _ path: String, _ parameters: [String: String]) throws -> Double {
        let start = Clock.now
        let answer = api.answer(path: path, parameters: parameters)
        let seconds = Clock.seconds(since: start)
        guard answer.status == 200 else {
            throw StrataError(.invalidArgument, "inspector benchmark: \(path) \(parameters) answered \(answer.status): \(answer.body.prefix(300))")
        }
        return seconds * 1000
    }

    private static func answer(_ api: InspectorAPI, _ path: String, _ parameters: [String: String]) throws -> [String: Any] {
        let answer = api.answer(path: path, parameters: parameters)
        guard answer.status == 200, let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any] else {
            throw StrataError(.invalidArgument, "inspector benchmark: \(path) answered \(answer.status): \(answer.body.prefix(300))")
        }
        return json
    }

    private static func format(_ milliseconds: Double) -> String {
        milliseconds >= 100 ? String(format: "%.0f", milliseconds) : String(format: "%.1f", milliseconds)
    }

    // MARK: Documents

    /// W1's model: the departments, then `count` employees in one batch insert, compacted.
    private static func buildObjects(_ url: URL, count: Int) throws {
        note("inspector: building \(url.lastPathComponent)")
        let model = BenchData.model()
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .normal
        let building = url.appendingPathExtension("building")
        let store = try DocumentStore(creatingAt: building, model: model, overwrite: true, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        _ = try context.executeBatch(try BenchData.employeeBatch(count: count, in: context))
        try store.compact()
        try store.close()
        try FileManager.default.moveItem(at: building, to: url)
    }

    /// 1,000 employees in one save, then `saves - 1` saves of one salary each, by two
    /// authors; compacted at the end with the whole log kept (retention all).
    private static func buildHistory(_ url: URL, saves: Int) throws {
        note("inspector: building \(url.lastPathComponent)")
        let model = BenchData.model()
        var configuration = DocumentStore.Configuration()
        configuration.synchronous = .normal
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        let building = url.appendingPathExtension("building")
        let store = try DocumentStore(creatingAt: building, model: model, overwrite: true, configuration: configuration)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator, undoManager: nil)
        let employee = try model.entity(named: "Employee")
        var people: [ManagedObject] = []
        for index in 0..<1_000 {
            let person = try context.insertObject(of: employee)
            try person.setValue(.string(BenchData.firstName(index)), forKey: "firstName")
            try person.setValue(.string(BenchData.lastName(index, count: 1_000)), forKey: "lastName")
            try person.setValue(.integer(BenchData.salary(index)), forKey: "salary")
            try person.setValue(.integer(Int64(index)), forKey: "employeeID")
            people.append(person)
        }
        try context.save()
        for save in 1..<saves {
            context.transactionAuthor = save % 2 == 0 ? "Ada" : "Grace"
            try people[save % people.count].setValue(.integer(Int64(30_000 + save)), forKey: "salary")
            try context.save()
            if save % 10_000 == 0 { note("inspector: \(save) saves") }
        }
        try store.compact()
        try store.close()
        try FileManager.default.moveItem(at: building, to: url)
    }
}
#endif
