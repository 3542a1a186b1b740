import Foundation
import Testing

@Suite("strata fetch --select")
struct FetchSelectCommandTests {
    /// Two departments (Sales without employees), four paid employees in Research, one
    /// employee with neither salary nor department.
    func staff(_ sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees()
        let research = try sandbox.insert(document, "Department", "name=Research")
        let sales = try sandbox.insert(document, "Department", "name=Sales")
        for (last, salary, department) in [("Lovelace", "150000", research), ("Babbage", "135000", research),
                                           ("Hopper", "142000", research), ("Turing", "98000", research),
                                           ("Knuth", "60000", sales)] {
            _ = try sandbox.insert(document, "Employee", "firstName=X", "lastName=\(last)", "salary=\(salary)", "department=@\(department)")
        }
        _ = try sandbox.insert(document, "Employee", "firstName=Quinn", "lastName=Null")
        return document
    }

    @Test("groups, aggregates, having and sorting by an aggregate, as JSON and as a table")
    func groupedTotals() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let arguments = ["fetch", document, "Employee", "--select", "department.name, sum:(salary) AS total, count:(salary) AS n",
                         "--group-by", "department.name", "--sort", "total:desc"]
        let all = try CLI.run("strata", arguments + ["--format", "json"])
        #expect(all.status == 0, "\(all.stderr)")
        let rows = try #require(try all.json() as? [[String: Any]])
        #expect(rows.map { $0["total"] as? Int } == [525_000, 60_000, 0])
        #expect(rows.map { $0["department.name"] as? String } == ["Research", "Sales", nil])
        #expect(rows.map { $0["n"] as? Int } == [4, 1, 0])
        let named = all.stdout.range(of: "\"department.name\"")!.lowerBound, total = all.stdout.range(of: "\"total\"")!.lowerBound
        #expect(named < total, "keys in --select order")

        let having = try CLI.run("strata", arguments + ["--having", "total > 100000 OR count:(lastName) == 1", "--format", "json"])
        let kept = try #require(try having.json() as? [[String: Any]])
        #expect(kept.map { $0["department.name"] as? String } == ["Research", "Sales", nil])
        let strict = try CLI.run("strata", arguments + ["--having", "total > 100000"])
        #expect(strict.status == 0, "\(strict.stderr)")
        let lines = strict.stdout.split(separator: "\n")
        #expect(lines.first?.contains("department.name") == true && lines.first?.contains("total") == true)
        #expect(strict.stdout.contains("Research") && strict.stdout.contains("525000") && !strict.stdout.contains("Sales"))
        #expect(try CLI.run("strata", arguments + ["--count"]).stdout == "3\n")
    }

    @Test("aggregates without grouping give one row; expressions per record; distinct; CSV")
    func oneRowAndPerRecord() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        let summary = try #require(try CLI.strata("fetch", document, "Employee", "--select",
                                                  "count:(salary) AS n, average:(salary) AS mean, max:(salary) AS top",
                                                  "--format", "json").json() as? [[String: Any]])
        #expect(summary.count == 1)
        #expect(summary.first?["n"] as? Int == 5 && summary.first?["mean"] as? Double == 117_000 && summary.first?["top"] as? Int == 150_000)
        let raised = try #require(try CLI.strata("fetch", document, "Employee", "--where", "salary > 140000", "--sort", "lastName",
                                                 "--select", "lastName, salary * 2 AS twice, uppercase:(lastName) AS loud",
                                                 "--format", "json").json() as? [[String: Any]])
        #expect(raised.map { $0["twice"] as? Int } == [284_000, 300_000])
        #expect(raised.map { $0["loud"] as? String } == ["HOPPER", "LOVELACE"])
        // A string attribute's `.length` is known to be an integer without `AS name:type`.
        let lengths = try #require(try CLI.strata("fetch", document, "Employee", "--where", "salary > 140000", "--sort", "lastName",
                                                  "--select", "lastName.length AS letters", "--format", "json").json() as? [[String: Any]])
        #expect(lengths.map { $0["letters"] as? Int } == [6, 8])
        let places = try CLI.strata("fetch", document, "Employee", "--select", "department.name", "--distinct",
                                    "--sort", "department.name", "--format", "csv")
        #expect(places.stdout == "department.name\n\nResearch\nSales\n")
    }

    @Test("malformed or inconsistent computed fetches are errors naming what is wrong")
    func errors() throws {
        let sandbox = try TemporaryDirectory()
        let document = try staff(sandbox)
        expectFailure(try CLI.strata("fetch", document, "Employee", "--select", "lastName, sum:(salary AS total"),
                      mentions: ["--select", "column"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--select", "lastName, sum:(salary) AS total",
                                     "--group-by", "department.name"),
                      mentions: ["lastName", "propertiesToGroupBy"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--select", "sum:(salary) AS total", "--having", "total > 1"),
                      mentions: ["--having", "--group-by"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--select", "salary AS pay:money"),
                      mentions: ["'money' is not a type"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--select", "department.name", "--group-by", "department.name",
                                     "--having", "total >"),
                      mentions: ["Malformed --having predicate"])
    }

    @Test("--help explains the computed options with examples")
    func help() throws {
        let help = try CLI.strata("fetch", "--help")
        for fragment in ["--select", "--group-by", "--having", "--distinct", "sum:(salary) AS total", "AS mean:integer64", "--having 'total > 100000'"] {
            #expect(help.stdout.contains(fragment), "\(fragment) missing from --help")
        }
    }
}
