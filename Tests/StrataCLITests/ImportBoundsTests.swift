import Foundation
import Testing

/// `strata import` holds every row to the import limits (docs/LIMITS.md, "Import files")
/// and changes nothing silently: bytes that are not UTF-8 and a header naming a column
/// twice are errors naming where (issue 32, items 7 and 9). Through the real process.
@Suite("strata import: bounded rows, no silent changes")
struct ImportBoundsTests {
    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func employeeCount(_ document: String) throws -> String {
        try CLI.strata("fetch", document, "Employee", "--count").stdout
    }

    @Test("a CSV line of 3 MB with no line break stops at the field limit, naming the row, the column and the limit")
    func giantCSVLine() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let csv = sandbox.path("giant.csv")
        // Like /dev/zero's bytes, but in a regular file: a 3 MB field on one line.
        try write("firstName,lastName,salary\nAda,Lovelace,1\n" + String(repeating: "x", count: 3 << 20) + ",Big,2\n", to: csv)
        let before = try sandbox.bytes("staff.strata")
        let limited = try CLI.run("strata", ["import", document, csv, "--entity", "Employee"],
                                  environment: ["STRATA_LIMITS": "maxImportFieldBytes=1000"])
        expectFailure(limited, mentions: [
            "CSV row 2, column 'firstName' (line 3): the field is longer than 1000 bytes (limit maxImportFieldBytes); raise it with STRATA_LIMITS=maxImportFieldBytes=N.",
        ])
        #expect(limited.stderr.utf8.count < 400)
        #expect(try sandbox.bytes("staff.strata") == before)

        // Within the limit the same field imports whole (the default limit is 64 MiB).
        let fine = try CLI.strata("import", document, csv, "--entity", "Employee")
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try employeeCount(document) == "2\n")
    }

    @Test("a quoted CSV field that never closes stops at the record limit; too many fields stop at the value limit")
    func recordAndValueLimits() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try sandbox.bytes("staff.strata")
        let unclosed = sandbox.path("unclosed.csv")
        try write("firstName,lastName\nAda,\"" + String(repeating: "line\n", count: 1_000), to: unclosed)
        let record = try CLI.run("strata", ["import", document, unclosed, "--entity", "Employee"],
                                 environment: ["STRATA_LIMITS": "maxImportRecordBytes=2000"])
        expectFailure(record, mentions: ["CSV row 1, column 'lastName' (line 2): the record is longer than 2000 bytes (limit maxImportRecordBytes)",
                                         "STRATA_LIMITS=maxImportRecordBytes=N"])

        let wide = sandbox.path("wide.csv")
        try write("firstName,lastName\n" + String(repeating: ",", count: 100_000) + "\n", to: wide)
        let values = try CLI.run("strata", ["import", document, wide, "--entity", "Employee"],
                                 environment: ["STRATA_LIMITS": "maxImportRecordValues=1000"])
        expectFailure(values, mentions: ["CSV row 1, column 1001 (line 2): the record has more than 1000 fields (limit maxImportRecordValues)"])
        let header = try CLI.run("strata", ["import", document, wide, "--entity", "Employee"],
                                 environment: ["STRATA_LIMITS": "maxImportRecordValues=1"])
        expectFailure(header, mentions: ["The CSV header, column 2 (line 1): the record has more than 1 fields"])
        #expect(try sandbox.bytes("staff.strata") == before)
    }

    @Test("a JSON item, a JSON string and a JSON item's values are held to the same limits")
    func jsonLimits() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try sandbox.bytes("staff.strata")
        let long = sandbox.path("long.json")
        try write("[{\"firstName\": \"Ada\", \"lastName\": \"Lovelace\"},\n {\"firstName\": \"" + String(repeating: "y", count: 5_000) + "\", \"lastName\": \"Long\"}]", to: long)
        let string = try CLI.run("strata", ["import", document, long, "--entity", "Employee"],
                                 environment: ["STRATA_LIMITS": "maxImportFieldBytes=100"])
        expectFailure(string, mentions: ["JSON item 2 (line 2, column 2): a string is longer than 100 bytes (limit maxImportFieldBytes); raise it with STRATA_LIMITS=maxImportFieldBytes=N."])
        let item = try CLI.run("strata", ["import", document, long, "--entity", "Employee"],
                               environment: ["STRATA_LIMITS": "maxImportRecordBytes=1000"])
        expectFailure(item, mentions: ["JSON item 2 (line 2, column 2): the item is longer than 1000 bytes (limit maxImportRecordBytes)"])
        let many = sandbox.path("many.json")
        try write("[{\"firstName\": \"Ada\", \"tags\": [" + Array(repeating: "0", count: 50).joined(separator: ",") + "]}]", to: many)
        let values = try CLI.run("strata", ["import", document, many, "--entity", "Employee"],
                                 environment: ["STRATA_LIMITS": "maxImportRecordValues=20"])
        expectFailure(values, mentions: ["JSON item 1 (line 1, column 2): the item has more than 20 values (limit maxImportRecordValues)"])
        #expect(try sandbox.bytes("staff.strata") == before)
        let fine = try CLI.strata("import", document, long, "--entity", "Employee")
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try employeeCount(document) == "2\n")
    }

    @Test("invalid UTF-8 in a CSV is an error naming the row and column, unless --replace-invalid-utf8")
    func invalidUTF8() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let csv = sandbox.path("latin1.csv")
        var bytes = Array("firstName,lastName\nAda,Lovelace\nJos".utf8)
        bytes += [0xE9]   // "é" in Latin-1: not UTF-8
        bytes += Array(",Ortega\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: csv))
        let before = try sandbox.bytes("staff.strata")
        let refused = try CLI.strata("import", document, csv, "--entity", "Employee")
        expectFailure(refused, mentions: ["CSV row 2, column 'firstName' (line 3): the field is not valid UTF-8",
                                          "--replace-invalid-utf8"])
        #expect(try sandbox.bytes("staff.strata") == before)
        // The JSON import's wording for the same fault.
        let json = sandbox.path("latin1.json")
        try Data(Array("[{\"firstName\": \"Jos".utf8) + [0xE9] + Array("\"}]".utf8)).write(to: URL(fileURLWithPath: json))
        expectFailure(try CLI.strata("import", document, json, "--entity", "Employee"), mentions: ["is not valid UTF-8"])

        let replaced = try CLI.strata("import", document, csv, "--entity", "Employee", "--replace-invalid-utf8")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let rows = try #require(try CLI.strata("fetch", document, "Employee", "--where", "lastName == 'Ortega'", "--format", "json").json() as? [[String: Any]])
        #expect(rows.first?["firstName"] as? String == "Jos\u{FFFD}")
        #expect(try CLI.strata("import", "--help").stdout.contains("--replace-invalid-utf8"))
    }

    @Test("a CSV header that names a column twice is an error naming the column")
    func repeatedHeaderColumn() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let csv = sandbox.path("twice.csv")
        try write("firstName,lastName,firstName\nAda,Lovelace,Augusta\n", to: csv)
        let before = try sandbox.bytes("staff.strata")
        let refused = try CLI.strata("import", document, csv, "--entity", "Employee")
        expectFailure(refused, mentions: ["The CSV header names the column 'firstName' twice (columns 1 and 3)"])
        #expect(try sandbox.bytes("staff.strata") == before)
        #expect(try employeeCount(document) == "0\n")
    }
}
