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
}
