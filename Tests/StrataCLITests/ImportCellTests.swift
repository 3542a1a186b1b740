import Foundation
import Testing

/// `strata import`'s CSV cells as the fast paths read them (docs/ARCHITECTURE.md, "Batch
/// requests and merges"): plain runs and quoted fields across the reader's 1 MiB chunks,
/// padded numbers, booleans, and the checks a row still gets when it is filled by slot.
@Suite("strata import reads CSV cells exactly")
struct ImportCellTests {
    /// The reader's chunk (ImportByteSource.chunkSize).
    static let chunk = 1 << 20

    /// A CSV whose row `employeeID == 999999` starts just before the first chunk boundary,
    /// so that its first name (`name`, as written in the file) runs across it.
    static func straddlingCSV(name: String) -> String {
        var text = "firstName,lastName,employeeID,salary\n"
        var index = 0
        while true {
            let row = "Filler\(index),Row,\(index),\(index)\n"
            if text.utf8.count + row.utf8.count >= chunk - 10 { break }
            text += row
            index += 1
        }
        text += "\(name),Straddle,999999,1\n"
        #expect(text.utf8.count > chunk, "the row must run past the first chunk")
        text += "After,Row,1000000,2\n"
        return text
    }

    @Test("a plain and a quoted field across the reader's chunk boundary come back whole", arguments: [false, true])
    func fieldsAcrossChunks(quoted: Bool) throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let long = String(repeating: "x", count: 200)
        let expected = quoted ? "Q, \"quoted\"\nline \(long)" : "P\(long)"
        let cell = quoted ? "\"Q, \"\"quoted\"\"\nline \(long)\"" : expected
        try Data(Self.straddlingCSV(name: cell).utf8).write(to: URL(fileURLWithPath: sandbox.path("rows.csv")))
        let result = try CLI.strata("import", document, sandbox.path("rows.csv"), "--entity", "Employee")
        #expect(result.status == 0, "\(result.stderr)")
        let straddling = try #require(try CLI.strata("fetch", document, "Employee", "--where", "employeeID == 999999", "--format", "json").json() as? [[String: Any]])
        #expect(straddling.first?["firstName"] as? String == expected)
        let after = try #require(try CLI.strata("fetch", document, "Employee", "--where", "employeeID == 1000000", "--format", "json").json() as? [[String: Any]])
        #expect(after.first?["firstName"] as? String == "After")
        #expect(after.first?["salary"] as? Int == 2)
    }

    @Test("numbers with spaces or tabs around them, booleans in any case, quoted empty text")
    func paddedNumbersAndBooleans() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let csv = "firstName,lastName,salary,employeeID,rating,active,email\n"
            + "Ada,Lovelace, 42 ,\t7,\t2.5 ,TRUE,a@b.c\n"
            + "Alan,Turing,43,8,3,No,\n"
            + "Grace,Hopper,44,9,-1e3,false,g@h.i\n"
        try Data(csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("rows.csv")))
        let result = try CLI.strata("import", document, sandbox.path("rows.csv"), "--entity", "Employee")
        #expect(result.status == 0, "\(result.stderr)")
        let people = try #require(try CLI.strata("fetch", document, "Employee", "--sort", "employeeID", "--format", "json").json() as? [[String: Any]])
        #expect(people.map { $0["salary"] as? Int } == [42, 43, 44])
        #expect(people.map { $0["employeeID"] as? Int } == [7, 8, 9])
        #expect(people.map { $0["rating"] as? Double } == [2.5, 3, -1000])
        #expect(people.map { $0["active"] as? Bool } == [true, false, false])
        #expect(people[1]["email"] is NSNull)
    }

    @Test("a row filled by slot is still checked: a transient column, a bound and a required value name their row")
    func checksNameTheRow() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let before = try sandbox.bytes("staff.strata")
        let cases: [(csv: String, mentions: [String])] = [
            ("firstName,lastName,fullName\nAda,Lovelace,\n", ["row 1", "fullName", "transient"]),
            ("firstName,lastName,salary\nAda,Lovelace,1\nAlan,Turing,-5\n", ["row 2", "salary", "minimum"]),
            ("firstName,lastName\nAda,Lovelace\nAlan,Turing\n,Hopper\n", ["row 3", "firstName"]),
            ("firstName,lastName,email\nAda,Lovelace,not-an-address\n", ["row 1", "email", "pattern"]),
            ("firstName,lastName,salary\nAda,Lovelace,lots\n", ["row 1", "salary", "lots"]),
        ]
        for (index, bad) in cases.enumerated() {
            try Data(bad.csv.utf8).write(to: URL(fileURLWithPath: sandbox.path("bad\(index).csv")))
            expectFailure(try CLI.strata("import", document, sandbox.path("bad\(index).csv"), "--entity", "Employee"), mentions: bad.mentions)
        }
        #expect(try sandbox.bytes("staff.strata") == before)
    }

    /// Imports a CSV of `header` and `records` into a new employees document, plainly and
    /// with an `_entity` column first (which takes the general path), and returns both
    /// results: status, the error, and every employee's values without their URIs.
    static func importBothWays(header: String, records: [String], in sandbox: TemporaryDirectory, name: String) throws
        -> [(status: Int32, stderr: String, rows: [NSDictionary])] {
        let plain = ([header] + records).map { $0 + "\n" }.joined()
        let general = (["_entity," + header] + records.map { $0.isEmpty ? "" : "Employee," + $0 }).map { $0 + "\n" }.joined()
        var results: [(status: Int32, stderr: String, rows: [NSDictionary])] = []
        for (way, text) in [("plain", plain), ("general", general)] {
            let document = try sandbox.employees("\(name)-\(way).strata")
            let file = sandbox.path("\(name)-\(way).csv")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let result = try CLI.strata("import", document, file, "--entity", "Employee")
            let fetched = try CLI.strata("fetch", document, "Employee", "--sort", "employeeID", "--format", "json")
            let rows = (try fetched.json() as? [[String: Any]] ?? []).map { row in
                NSDictionary(dictionary: row.filter { !$0.key.hasPrefix("_") && $0.key != "uri" })
            }
            results.append((result.status, result.stderr.replacingOccurrences(of: "\(name)-\(way)", with: "DOC"), rows))
        }
        return results
    }

    @Test("a plain CSV (attribute columns only) reads every cell as the general path does, values and errors")
    func plainCellsMatchTheGeneralPath() throws {
        let sandbox = try TemporaryDirectory()
        let header = "firstName,lastName,salary,employeeID,active,rating,startDate,bonus,badge,homepage,photo,email"
        let records = [
            "Zoë,日本,007,1,TRUE,2.5,2024-03-01,1.25,0F5B6C1E-2B4A-4C4E-9F1A-3D2C1B0A9F8E,https://example.com/a,aGVsbG8=,a@b.c",
            "\"Q, \"\"x\"\"\nline\",Nul,-0,2,yes,-1e3,2024-03-01T09:30:00Z,-3,,,,",
            "Ada,Lovelace,9223372036854775807,3,1,,2024-03-01T09:30:00,,,,,null",
            "Alan,Turing,0000,-4,0,0.1,,,,,,",
            "",
            "Grace,Hopper,+5,5,false,3,,,,,,g@h.i",
            "Edsger,Dijkstra, 12 ,6,true,,,,,,,",
        ]
        let good = try Self.importBothWays(header: header, records: records, in: sandbox, name: "good")
        #expect(good[0].status == 0, "\(good[0].stderr)")
        #expect(good[1].status == 0, "\(good[1].stderr)")
        #expect(good[0].rows.count == 6)
        #expect(good[0].rows == good[1].rows)
        #expect(good[0].rows.contains { $0["firstName"] as? String == "Zoë" && $0["salary"] as? Int == 7 })
        #expect(good[0].rows.contains { $0["lastName"] as? String == "Lovelace" && $0["email"] is NSNull })

        let bad: [(header: String, records: [String])] = [
            ("firstName,lastName,employeeID", ["Ada,Lovelace,3000000000"]),
            ("firstName,lastName,employeeID", ["Ada,Lovelace,12345678901234567890"]),
            ("firstName,lastName,active", ["Ada,Lovelace,maybe"]),
            ("firstName,lastName,salary", ["Ada,Lovelace,1", "Alan,Turing,--5"]),
            ("firstName,lastName,startDate", ["Ada,Lovelace,yesterday"]),
            ("firstName,lastName", ["Ada,\"Love"]),
        ]
        for (index, file) in bad.enumerated() {
            let both = try Self.importBothWays(header: file.header, records: file.records, in: sandbox, name: "bad\(index)")
            #expect(both[0].status != 0 && both[1].status != 0, "case \(index)")
            #expect(both[0].stderr == both[1].stderr, "case \(index)")
            #expect(both[0].stderr.contains("row") || both[0].stderr.contains("line"), "case \(index): \(both[0].stderr)")
        }
    }
}
