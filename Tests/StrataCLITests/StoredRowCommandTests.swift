import Foundation
import Testing

// `strata fetch` and `strata export` read a compacted record's columns where SQLite holds
// them (no value row, no `String` per value: docs/BENCHMARKS.md, W13) and every other
// record from its values. The two reads must print the same bytes.

/// A model with an attribute of every type and a to-one (its inverse to-many on the other
/// entity, so the records of `Row` have no to-many).
private func writeRowsModel(_ sandbox: TemporaryDirectory) throws -> String {
    let model = sandbox.path("rows.json")
    try Data("""
        {"format": "strata-model", "formatVersion": 1, "entities": [
          {"name": "Row", "attributes": [
            {"name": "name", "type": "string"}, {"name": "small", "type": "integer16"},
            {"name": "big", "type": "integer64"}, {"name": "ratio", "type": "double"},
            {"name": "single", "type": "float"}, {"name": "amount", "type": "decimal"},
            {"name": "flag", "type": "boolean"}, {"name": "at", "type": "date"},
            {"name": "blob", "type": "binaryData"}, {"name": "badge", "type": "uuid"},
            {"name": "link", "type": "uri"}],
           "relationships": [{"name": "tag", "destination": "Tag", "inverse": "rows"}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "rows", "destination": "Row", "toMany": true, "inverse": "tag"}]}]}
        """.utf8).write(to: URL(fileURLWithPath: model))
    return model
}

/// 60 rows of `Row` as CSV, two in three tagged with `tag`.
private func writeRowsCSV(_ sandbox: TemporaryDirectory, tag: String) throws -> String {
    let names = ["plain", "\"Grace, \"\"Amazing\"\"\"", "\"line\nbreak\"", "Ünïcödé 😀 中文", "\"a\"\"\u{301}b\"", "tab\tand \\", "ctl\u{01}"]
    let bigs = ["9223372036854775807", "-9223372036854775808", "0", "-1", "1000000000000000"]
    let ratios = ["0.1", "1e300", "-2.5", "1e15", "123456789012345", "-0", "5e-324", "0.30000000000000004"]
    let dates = ["1969-12-31T23:59:59Z", "2000-12-31T23:59:59Z", "2001-01-01T00:00:00Z", "2024-02-29T12:00:01Z",
                 "2024-02-29T23:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2024-03-01T09:30:05.25Z"]
    var csv = "name,small,big,ratio,single,amount,flag,at,blob,badge,link,tag\n"
    for index in 0..<60 {
        // Every seventh cell of each column is empty (null).
        func cell(_ text: String, _ skip: Int) -> String { (index + skip) % 7 == 0 ? "" : text }
        csv += [cell(names[index % names.count], 1), cell(String(index % 200 - 100), 2), cell(bigs[index % bigs.count], 3),
                cell(ratios[index % ratios.count], 4), cell(String(Double(index) / 8), 5), cell("\(index).50", 6),
                cell(index % 2 == 0 ? "true" : "false", 0), cell(dates[index % dates.count], 1), cell("AAEC/w==", 2),
                cell("E621E1F8-C36C-495A-93FC-0C247A3E6E\(String(format: "%02d", index % 100))", 3),
                cell("\"https://example.com/\(index)?a=b,c\"", 4), index % 3 == 0 ? "" : tag].joined(separator: ",") + "\n"
    }
    let csvPath = sandbox.path("rows.csv")
    try Data(csv.utf8).write(to: URL(fileURLWithPath: csvPath))
    return csvPath
}

/// The bytes of each way the rows are printed.
private func printed(_ document: String) throws -> [[UInt8]] {
    try [["fetch", document, "Row", "--format", "csv"], ["fetch", document, "Row", "--format", "json"],
         ["fetch", document, "Row", "--format", "ids"], ["fetch", document, "Row", "--format", "csv", "--sort", "big:desc", "--limit", "9", "--offset", "4"],
         ["export", document]].map { arguments in
        let result = try CLI.run("strata", arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return Array(result.stdout.utf8)
    }
}

@Suite("fetch and export print compacted columns as they print values")
struct StoredRowCommandTests {
    @Test("a compacted document prints the same bytes as with an uncompacted save, and as get --json")
    func columnsReadInPlacePrintAsValues() throws {
        let sandbox = try TemporaryDirectory()
        let document = sandbox.path("rows.strata")
        #expect(try CLI.strata("new", document, "--model", try writeRowsModel(sandbox)).status == 0)
        let tag = try sandbox.insert(document, "Tag", "name=t, \"1\"")
        let imported = try CLI.strata("import", document, try writeRowsCSV(sandbox, tag: tag), "--entity", "Row")
        #expect(imported.status == 0, "\(imported.stderr)")
        // The import compacts: the rows are read in place.
        let inPlace = try printed(document)
        // An uncompacted save (a tag inserted, then deleted) leaves the overlay not empty:
        // the same records are read from their values.
        let extra = try sandbox.insert(document, "Tag", "name=extra")
        #expect(try CLI.strata("delete", document, extra).status == 0)
        let fromValues = try printed(document)
        for (index, (first, second)) in zip(inPlace, fromValues).enumerated() {
            #expect(first == second, "output \(index) differs:\n\(String(decoding: first, as: UTF8.self))\n---\n\(String(decoding: second, as: UTF8.self))")
        }
        // Each record's JSON is the tree's (`get --json`).
        let uris = String(decoding: inPlace[2], as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(uris.count == 60)
        let records = try uris.map { uri in
            let result = try CLI.strata("get", document, uri, "--json")
            return result.stdout.hasSuffix("\n") ? String(result.stdout.dropLast()) : result.stdout
        }
        let array = "[\n  " + records.map { $0.replacingOccurrences(of: "\n", with: "\n  ") }.joined(separator: ",\n  ") + "\n]\n"
        #expect(Array(array.utf8) == inPlace[1])
        // Cells as CSV asks: extremes of integers, a quote a combining mark follows doubled.
        let csv = String(decoding: inPlace[0], as: UTF8.self)
        for expected in [",9223372036854775807,", ",-9223372036854775808,", ",\"a\"\"\u{301}b\",", ",\"Grace, \"\"Amazing\"\"\",",
                         ",1e+300,", ",0001-01-01T00:00:00Z,", ",9999-12-31T23:59:59Z,", ",2024-03-01T09:30:05.25Z,"] {
            #expect(csv.utf8.firstRange(of: expected.utf8) != nil, "\(expected) in\n\(csv)")
        }
    }
}
