import Foundation
import Strata
import Testing

// `strata fetch` and `strata export` print records as they read them (issue 36, item 2):
// the output must be what the whole-answer fetch gave, record for record and in its order,
// whatever the format, the predicate, the sort and the window — with records both in the
// compacted snapshot and only in the log's uncompacted segments (the merge).

/// A document of 40 imported (compacted) employees with ties and NULLs in the sort keys,
/// then saves the snapshot does not hold yet: two inserts, an update, a delete.
private func mixedDocument(_ sandbox: TemporaryDirectory) throws -> String {
    let document = try sandbox.employees()
    let research = try sandbox.insert(document, "Department", "name=Research")
    var csv = "firstName,lastName,salary,department\n"
    for index in 0..<40 {
        let salary = index % 7 == 0 ? "" : String(40_000 + (index * 7_919) % 60_000)
        csv += "F\(index),\(["Hopper", "lovelace", "Lovelace", "Turing", "babbage"][index % 5]),\(salary),\(index % 3 == 0 ? research : "")\n"
    }
    try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("people.csv")))
    let imported = try CLI.strata("import", document, sandbox.path("people.csv"), "--entity", "Employee")
    #expect(imported.status == 0, "\(imported.stderr)")
    _ = try sandbox.insert(document, "Employee", "firstName=Zed", "lastName=Aardvark", "salary=77000")
    _ = try sandbox.insert(document, "Employee", "firstName=Yan", "lastName=Turing")
    let ids = try CLI.strata("fetch", document, "Employee", "--sort", "firstName", "--format", "ids").stdout.split(separator: "\n").map(String.init)
    #expect(try CLI.strata("update", document, ids[3], "salary=1").status == 0)
    #expect(try CLI.strata("delete", document, ids[5]).status == 0)
    return document
}

/// The IDs and values the library's whole-answer fetch returns (`context.fetch`, objects
/// loaded), as URIs and each object's stored attribute values by name.
private func libraryFetch(_ document: String, _ entity: String, predicate: String?, sort: [FetchSortDescriptor],
                          limit: Int, offset: Int) throws -> [(uri: String, values: [String: PropertyValue])] {
    var configuration = DocumentStore.Configuration()
    configuration.compactsOnClose = false
    let store = try DocumentStore(openingAt: URL(fileURLWithPath: document), configuration: configuration)
    defer { try? store.close() }
    let coordinator = PersistentStoreCoordinator(model: store.model)
    try coordinator.addStore(store)
    let context = ManagedObjectContext(coordinator: coordinator)
    let request = FetchRequest(entityName: entity, predicate: try predicate.map { try FetchPredicate(format: $0) }, sortDescriptors: sort)
    request.fetchLimit = limit
    request.fetchOffset = offset
    return try context.fetch(request).map { object in
        var values: [String: PropertyValue] = [:]
        for attribute in object.entity.attributes where !attribute.isTransient {
            values[attribute.name] = try object.value(forKey: attribute.name)
        }
        return (object.objectID.description, values)
    }
}

@Suite("strata fetch and export stream their output", .serialized)
struct StreamingOutputTests {
    /// The fetches compared: predicates, sorts (ties, NULLs, case-insensitive, descending,
    /// through a relationship) and windows.
    static let variants: [(predicate: String?, sort: [String], limit: Int, offset: Int)] = [
        (nil, [], 0, 0),
        (nil, ["lastName"], 0, 0),
        ("salary > 50000", ["salary:desc"], 0, 0),
        (nil, ["lastName:c", "salary:desc"], 7, 3),
        ("lastName BEGINSWITH[c] 'l' OR salary == nil", ["salary"], 5, 0),
        ("department.name == 'Research'", ["firstName:desc"], 0, 2),
        (nil, ["department.name", "firstName"], 10, 30),
        ("firstName MATCHES 'F1.*'", [], 3, 1),
    ]

    @Test("every format lists the whole-answer fetch's records in its order, values included")
    func formatsMatchTheWholeAnswer() throws {
        let sandbox = try TemporaryDirectory()
        let document = try mixedDocument(sandbox)
        for variant in Self.variants {
            var arguments = [document, "Employee"]
            if let predicate = variant.predicate { arguments += ["--where", predicate] }
            for key in variant.sort { arguments += ["--sort", key] }
            arguments += ["--limit", String(variant.limit), "--offset", String(variant.offset)]
            let expected = try libraryFetch(document, "Employee", predicate: variant.predicate,
                                            sort: variant.sort.map(Self.descriptor),
                                            limit: variant.limit, offset: variant.offset)
            let label = "\(variant)"

            let json = try CLI.run("strata", ["fetch"] + arguments + ["--format", "json"])
            #expect(json.status == 0, "\(label): \(json.stderr)")
            let records = try #require(try json.json() as? [[String: Any]], "\(label)")
            #expect(records.map { $0["_uri"] as? String } == expected.map(\.uri), "\(label)")
            for (record, object) in zip(records, expected) {
                let lastName = object.values["lastName"].flatMap { value -> String? in if case .string(let text) = value { text } else { nil } }
                #expect(record["lastName"] as? String == lastName, "\(label)")
                let salary = object.values["salary"].flatMap { value -> Int? in if case .integer(let number) = value { Int(number) } else { nil } }
                #expect((record["salary"] as? NSNumber)?.intValue == salary, "\(label)")
            }
            #expect(json.stdout.hasSuffix(expected.isEmpty ? "[]\n" : "\n]\n"), "\(label)")

            let ids = try CLI.run("strata", ["fetch"] + arguments + ["--format", "ids"])
            #expect(ids.stdout == expected.map { $0.uri + "\n" }.joined(), "\(label)")

            let csv = try CLI.run("strata", ["fetch"] + arguments + ["--format", "csv"])
            let lines = csv.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first?.hasPrefix("_uri,_entity,firstName,lastName,salary,") == true, "\(label)")
            #expect(lines.last == "" && lines.count == expected.count + 2, "\(label)")
            #expect(lines.dropFirst().dropLast().map { String($0.prefix { $0 != "," }) } == expected.map(\.uri), "\(label)")

            let table = try CLI.run("strata", ["fetch"] + arguments)
            let rows = table.stdout.split(separator: "\n").map(String.init)
            #expect(rows.count == expected.count + 2, "\(label)")
            #expect(rows.dropFirst(2).map { String($0.prefix { $0 != " " }) } == expected.map { Self.shortReference($0.uri) }, "\(label)")
            #expect(table.stderr == "\(expected.count) object\(expected.count == 1 ? "" : "s")\n", "\(label)")
            // Every row padded to the same columns: the first pass measured what the second printed.
            let header = try #require(rows.first)
            let rule = rows[1]
            #expect(rule.count >= header.count, "\(label)")
        }
    }

    @Test("the formats and export print exactly what they printed before streaming")
    func exactText() throws {
        let sandbox = try TemporaryDirectory()
        let document = try StreamingOutputGoldenTests.document(in: sandbox)
        func run(_ arguments: [String]) throws -> (stdout: String, stderr: String) {
            let result = try CLI.run("strata", arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let stdout = result.stdout.replacingOccurrences(of: #"x-strata://[0-9A-F-]+/"#, with: "x-strata://STORE/", options: .regularExpression)
            return (stdout, result.stderr)
        }
        typealias Golden = StreamingOutputGolden
        let filter = ["--sort", "lastName", "--where", "salary != 1"]
        func fetch(_ format: String) throws -> (stdout: String, stderr: String) {
            try run(["fetch", document, "Employee"] + filter + ["--format", format])
        }
        let table = try fetch("table")
        #expect(table.stdout == Golden.fetchTable + "\n")
        #expect(table.stderr == Golden.fetchTableNote + "\n")
        #expect(try fetch("csv").stdout == Golden.fetchCSV + "\n")
        #expect(try fetch("json").stdout == Golden.fetchJSON + "\n")
        #expect(try fetch("ids").stdout == Golden.fetchIDs + "\n")
        // Person is abstract: its records are Employees, whose columns follow Person's.
        #expect(try run(["fetch", document, "Person", "--sort", "firstName:desc", "--format", "csv"]).stdout == Golden.personCSV + "\n")
        #expect(try run(["fetch", document, "Person", "--format", "table"]).stdout == Golden.personTable + "\n")
        let none = ["fetch", document, "Employee", "--where", "salary > 999999"]
        #expect(try run(none + ["--format", "json"]).stdout == Golden.emptyJSON + "\n")
        #expect(try run(none + ["--format", "csv"]).stdout == Golden.emptyCSV + "\n")
        let empty = try run(none)
        #expect(empty.stdout == Golden.emptyTable + "\n")
        #expect(empty.stderr == "0 objects\n")
        #expect(try run(["export", document]).stdout == Golden.export + "\n")
        let written = try run(["export", document, "--output", sandbox.path("out.json")])
        #expect(written.stdout.isEmpty)
        let file = try String(contentsOfFile: sandbox.path("out.json"), encoding: .utf8)
            .replacingOccurrences(of: #"x-strata://[0-9A-F-]+/"#, with: "x-strata://STORE/", options: .regularExpression)
        #expect(file == Golden.export + "\n")
    }

    /// `KEY[:c][:desc]` as `strata fetch --sort` reads it.
    static func descriptor(_ text: String) -> FetchSortDescriptor {
        let parts = text.split(separator: ":").map(String.init)
        var descriptor = FetchSortDescriptor(parts[0])
        if parts.contains("desc") { descriptor.ascending = false }
        if parts.contains("c") { descriptor.comparison = .caseInsensitive }
        return descriptor
    }

    static func shortReference(_ uri: String) -> String {
        let parts = uri.split(separator: "/")
        return parts.suffix(2).joined(separator: "/")
    }
}

/// The document the golden texts (``StreamingOutputGolden``) were printed from.
enum StreamingOutputGoldenTests {
    static func document(in sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees("golden.strata")
        let research = try sandbox.insert(document, "Department", "name=Research\nand Development, \"R&D\"")
        let ada = try sandbox.insert(document, "Employee", "firstName=Ada", "lastName=Lovelace", "salary=150000", "department=@\(research)")
        _ = try sandbox.insert(document, "Employee", "firstName=Alan", "lastName=Turing", "rating=4.5", "manager=@\(ada)")
        _ = try sandbox.insert(document, "Employee", "firstName=Grace, \"Amazing\"", "lastName=Hopper", "salary=120000", "manager=@\(ada)")
        _ = try sandbox.insert(document, "Project", "name=Engine", "members=@\(ada)")
        return document
    }
}
