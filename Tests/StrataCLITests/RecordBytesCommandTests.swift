import Foundation
import Strata
import Testing

// `strata fetch --format json|csv|ids` and `strata export` write each record straight from
// the store's values into bytes (ToolRecordWriter, ToolCSVRowWriter; docs/BENCHMARKS.md,
// W13). `strata get --json` still builds the record as a JSON tree and renders it: the two
// paths must give the same text for every kind of value, escape and relationship.

/// Names that JSON and CSV must escape or quote: quotes, commas, line breaks, tabs,
/// backslashes, control characters, a quote a combining mark follows, non-ASCII text.
private let trickyNames = [
    "Grace, \"Amazing\"", "line\nbreak", "carriage\rreturn", "tab\tand \\ backslash",
    "ctl\u{01}\u{1F}", "Ünïcödé 😀 中文", "a\"\u{301}b", "\"", ",", "plain",
]

/// An employees document with records in the compacted snapshot (a CSV import) and in
/// uncompacted saves (inserts, an update, a delete), holding every kind of value.
private func trickyDocument(_ sandbox: TemporaryDirectory) throws -> String {
    let document = try sandbox.employees()
    let department = try sandbox.insert(document, "Department", "name=R&D, \"North\"\nwing", "budget=1234.50")
    var csv = "firstName,lastName,salary,startDate,rating,bonus,active\n"
    for (index, name) in trickyNames.enumerated() {
        // Quotes doubled scalar by scalar (a character-based replacement misses the one a
        // combining mark follows).
        var escaped = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            if scalar == "\"" { escaped.append(scalar) }
            escaped.append(scalar)
        }
        let quoted = "\"" + String(escaped) + "\""
        // Whole seconds (before and after 2001, two on one day, midnight) and fractions.
        let wholeSeconds = ["1969-12-31T23:59:59Z", "2000-12-31T23:59:59Z", "2001-01-01T00:00:00Z", "2024-02-29T12:00:01Z", "2024-02-29T23:00:00Z"]
        let date = index % 2 == 0 ? wholeSeconds[index / 2 % wholeSeconds.count] : "2024-03-0\(index % 9 + 1)T09:30:0\(index % 10).25Z"
        csv += "\(quoted),L\(index),\(index * 1000),\(date),\(Double(index) / 4),\(index).05,\(index % 2 == 0)\n"
    }
    try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("people.csv")))
    let imported = try CLI.strata("import", document, sandbox.path("people.csv"), "--entity", "Employee")
    #expect(imported.status == 0, "\(imported.stderr)")
    let boss = try sandbox.insert(
        document, "Employee", "firstName=\(trickyNames[0])", "lastName=\(trickyNames[1])", "salary=9223372036854775807",
        "startDate=0001-01-01", "employeeID=7", "email=a@b.c", "active=false", "rating=1e300",
        "bonus=99999999999999999999.123", "badge=E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "homepage=https://example.com/a?b=c,d&e=\"f\"", "photo=AAECAwQ=", "notes=eyJhIjoxfQ==", "department=@\(department)")
    _ = try sandbox.insert(document, "Employee", "firstName=\(trickyNames[4])", "lastName=\(trickyNames[6])",
                           "startDate=9999-12-31T23:59:59.999Z", "rating=-2.5", "manager=@\(boss)", "department=@\(department)")
    _ = try sandbox.insert(document, "Employee", "firstName=\(trickyNames[5])", "lastName=x", "rating=3", "manager=@\(boss)")
    _ = try sandbox.insert(document, "Project", "name=\(trickyNames[2])", "deadline=2030-01-01T00:00:00.5Z", "members=@\(boss)")
    let ids = try CLI.strata("fetch", document, "Employee", "--format", "ids").stdout.split(separator: "\n").map(String.init)
    #expect(try CLI.strata("update", document, ids[2], "salary=1", "manager=@\(boss)").status == 0)
    #expect(try CLI.strata("delete", document, ids[3]).status == 0)
    return document
}

/// `strata get REF --json`: the record built as a JSON tree and rendered.
private func treeRecord(_ document: String, _ uri: String) throws -> String {
    let result = try CLI.strata("get", document, uri, "--json")
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
}

/// The URIs a fetch lists, in its order.
private func uris(_ document: String, _ entity: String, _ extra: [String] = []) throws -> [String] {
    let result = try CLI.run("strata", ["fetch", document, entity, "--format", "ids"] + extra)
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init)
}

/// The records as an array one level in, as `fetch --format json` and `export` print them.
private func array(of records: [String]) -> String {
    records.isEmpty ? "[]\n" : "[\n  " + records.map { $0.replacingOccurrences(of: "\n", with: "\n  ") }.joined(separator: ",\n  ") + "\n]\n"
}

/// A pretty JSON object's top-level members, in order, each with its value's JSON text.
private func members(ofPretty object: String) -> [(key: String, value: String)] {
    var result: [(key: String, value: String)] = []
    for line in object.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("  \""), let colon = line.range(of: "\": ") {
            let key = try? JSONSerialization.jsonObject(with: Data(line[line.index(line.startIndex, offsetBy: 2)...colon.lowerBound].utf8), options: .fragmentsAllowed)
            var value = String(line[colon.upperBound...])
            if value.hasSuffix(",") { value.removeLast() }
            result.append(((key as? String) ?? "", value))
        } else if line.hasPrefix("    "), var last = result.popLast() {
            // An array's items, one per line.
            last.value += line.trimmingCharacters(in: .whitespaces)
            result.append(last)
        } else if line == "  ]" || line == "  ],", var last = result.popLast() {
            last.value += "]"
            result.append(last)
        }
    }
    return result
}

/// The CSV cell a record's member gives: empty for null, a string's text, a to-many's URIs
/// joined by spaces, a number's or a boolean's JSON text.
private func csvCell(_ json: String) -> String {
    if json == "null" { return "" }
    let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
    if json.hasPrefix("\"") { return value as? String ?? "?" }
    if json.hasPrefix("[") { return (value as? [String] ?? ["?"]).joined(separator: " ") }
    return json
}

/// RFC 4180 rows: quoted fields may hold commas, quotes (doubled) and line breaks.
private func parseCSV(_ text: String) -> [[String]]? {
    var rows: [[String]] = []
    var row: [String] = []
    var field = ""
    var quoted = false
    var scalars = text.unicodeScalars.makeIterator()
    var pending = scalars.next()
    while let scalar = pending {
        pending = scalars.next()
        if quoted {
            if scalar == "\"" {
                if pending == "\"" { field.unicodeScalars.append("\""); pending = scalars.next() } else { quoted = false }
            } else {
                field.unicodeScalars.append(scalar)
            }
        } else if scalar == "\"" {
            guard field.isEmpty else { return nil }
            quoted = true
        } else if scalar == "," {
            row.append(field)
            field = ""
        } else if scalar == "\n" {
            row.append(field)
            rows.append(row)
            (row, field) = ([], "")
        } else {
            field.unicodeScalars.append(scalar)
        }
    }
    guard !quoted, row.isEmpty, field.isEmpty else { return nil }
    return rows
}

@Suite("fetch and export write records straight from their values")
struct RecordBytesCommandTests {
    @Test("fetch --format json and export print each record as get --json renders it")
    func jsonMatchesTheTreeRendering() throws {
        let sandbox = try TemporaryDirectory()
        let document = try trickyDocument(sandbox)
        var exported: [String] = []
        for entity in ["Employee", "Department", "Project"] {
            let listed = try uris(document, entity)
            #expect(!listed.isEmpty)
            let records = try listed.map { try treeRecord(document, $0) }
            let fetched = try CLI.strata("fetch", document, entity, "--format", "json")
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(fetched.stdout == array(of: records), "\(entity)")
            exported += records
        }
        let export = try CLI.strata("export", document)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == array(of: exported))
        // The escapes read back as the values stored.
        let parsed = try #require(try export.json() as? [[String: Any]])
        let names = Set(parsed.compactMap { $0["firstName"] as? String })
        // (The fourth imported employee is deleted.)
        #expect(Set(trickyNames).subtracting([trickyNames[3]]).isSubset(of: names), "\(names)")
        // A window and a sort give the same records the ids format lists.
        let window = ["--sort", "lastName:desc", "--limit", "5", "--offset", "2"]
        let windowed = try CLI.run("strata", ["fetch", document, "Employee", "--format", "json"] + window)
        #expect(windowed.stdout == array(of: try uris(document, "Employee", window).map { try treeRecord(document, $0) }))
    }

    @Test("fetch --format csv gives each record's values as cells, quoted where needed")
    func csvCellsAreTheRecordsValues() throws {
        let sandbox = try TemporaryDirectory()
        let document = try trickyDocument(sandbox)
        for entity in ["Employee", "Department", "Project"] {
            let listed = try uris(document, entity)
            let result = try CLI.strata("fetch", document, entity, "--format", "csv")
            #expect(result.status == 0, "\(result.stderr)")
            let rows = try #require(parseCSV(result.stdout), "\(entity): not RFC 4180: \(result.stdout)")
            #expect(rows.count == listed.count + 1)
            for (uri, row) in zip(listed, rows.dropFirst()) {
                let record = members(ofPretty: try treeRecord(document, uri))
                #expect(rows[0] == record.map(\.key), "\(entity)")
                #expect(row == record.map { csvCell($0.value) }, "\(uri)")
            }
        }
        // The quote a combining mark follows is doubled like any other.
        let names = try CLI.strata("fetch", document, "Employee", "--format", "csv", "--where", "lastName == 'L6'")
        #expect(names.stdout.contains(",\"a\"\"\u{301}b\",L6,"), "\(names.stdout)")
    }

    @Test("a nested composite: its JSON object nested in every format, one compact JSON cell in CSV")
    func nestedComposite() throws {
        let sandbox = try TemporaryDirectory()
        let modelPath = try sandbox.writeSitesModel()
        let document = sandbox.path("sites.strata")
        #expect(try CLI.strata("new", document, "--model", modelPath).status == 0)
        _ = try sandbox.insert(document, "Site", "name=Oslo, \"N\"", "address.city=Os\"lo", "address.geo.lat=59.9", "address.geo.lon=10.7")
        _ = try sandbox.insert(document, "Site", "name=Nowhere")
        let listed = try uris(document, "Site")
        let records = try listed.map { try treeRecord(document, $0) }
        #expect(try CLI.strata("fetch", document, "Site", "--format", "json").stdout == array(of: records))
        #expect(try CLI.strata("export", document).stdout == array(of: records))
        let csv = try CLI.strata("fetch", document, "Site", "--format", "csv")
        let rows = try #require(parseCSV(csv.stdout), "not RFC 4180: \(csv.stdout)")
        // The elements' stored keys are columns (empty), then the composite's name.
        #expect(rows[0] == ["_uri", "_entity", "name", "address.city", "address.geo.lat", "address.geo.lon", "address"])
        for (uri, row) in zip(listed, rows.dropFirst()) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(try treeRecord(document, uri).utf8)) as? [String: Any])
            #expect(row[0] == uri && row[2] == record["name"] as? String)
            #expect(row[3...5].allSatisfy { $0.isEmpty })
            let cell = try JSONSerialization.jsonObject(with: Data(row[6].utf8)) as? NSDictionary
            #expect(cell == record["address"] as? NSDictionary, "\(row[6])")
            #expect(!row[6].contains(" "), "compact: \(row[6])")
        }
    }

    @Test("to-many members across the stream's batches, compacted and in the overlay")
    func toManysAcrossBatches() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        // More than one batch of the record stream (512 records): each employee but the
        // first managed by the one at a third of its index.
        let count = 1_100
        var csv = "_uri,firstName,lastName,manager\n"
        for index in 0..<count { csv += "e\(index),F\(index),L\(index),\(index == 0 ? "" : "e\(index / 3)")\n" }
        try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("tree.csv")))
        let imported = try CLI.strata("import", document, sandbox.path("tree.csv"), "--entity", "Employee")
        #expect(imported.status == 0, "\(imported.stderr)")
        let before = try uris(document, "Employee")
        // Uncompacted: a manager's report deleted, another added.
        #expect(try CLI.strata("delete", document, before[700]).status == 0)
        _ = try sandbox.insert(document, "Employee", "firstName=New", "lastName=N", "manager=@\(before[233])")
        for format in ["json", "csv"] {
            let result = try CLI.strata("fetch", document, "Employee", "--format", format)
            #expect(result.status == 0, "\(result.stderr)")
            var all: [String] = []
            var managers: [String: String] = [:]
            var reports: [String: [String]] = [:]
            if format == "json" {
                let records = try #require(try result.json() as? [[String: Any]])
                for record in records {
                    let uri = try #require(record["_uri"] as? String)
                    all.append(uri)
                    managers[uri] = record["manager"] as? String
                    reports[uri] = record["directReports"] as? [String]
                }
            } else {
                let rows = try #require(parseCSV(result.stdout))
                let header = rows[0]
                let (manager, direct) = (try #require(header.firstIndex(of: "manager")), try #require(header.firstIndex(of: "directReports")))
                for row in rows.dropFirst() {
                    all.append(row[0])
                    managers[row[0]] = row[manager].isEmpty ? nil : row[manager]
                    reports[row[0]] = row[direct].split(separator: " ").map(String.init)
                }
            }
            #expect(all == (try uris(document, "Employee")), "\(format)")
            #expect(all.count == count, "\(format)")
            // Every record's direct reports are exactly those it manages, in key order.
            var expected: [String: [String]] = [:]
            for uri in all { if let manager = managers[uri] { expected[manager, default: []].append(uri) } }
            for uri in all {
                #expect(reports[uri] == expected[uri] ?? [], "\(format) \(uri)")
            }
            #expect(reports[before[233]]?.count == 3, "\(format)")
            #expect(!(reports.values.contains { $0.contains(before[700]) }), "\(format)")
        }
    }
}
