import Foundation
import Testing

@Suite("examples run as programs")
struct ExampleTests {
    @Test func theBackgroundImportExampleMergesAnImportIntoAnEditedDocument() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.url
        let document = directory.appendingPathComponent("import.strata")
        let result = try CLI.run("background-import-example", [document.path, "--employees", "1500"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("imported 1500 employees"), "\(result.stdout)")
        #expect(result.stdout.contains("\"Research 5\", 1500 members"), "\(result.stdout)")
        // The document it leaves opens in the CLI with every employee in the department.
        let count = try CLI.run("strata", ["fetch", document.path, "Employee", "--where", "department.name == 'Research 5'", "--count"])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("1500"), "\(count.stdout)")
    }

    @Test func theEmployeesExampleRuns() throws {
        let result = try CLI.run("employees-example", [])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Ada"), "\(result.stdout)")
        // Issue 21's tour of the guide, line by line.
        let tour = """
            — default data saved; can undo: false
            — after the background import: 3 in Sales
            — Sales payroll (employees.@sum.salary): 360000
            — EmployeesEarningMoreThan $SALARY = 100000: ["Hopper", "Liskov"]
            — Grace Hopper loaded; a pending rename follows
            — refresh pitfall: the cached transient says Grace Hopper; the accessor with the fix says Amazing Grace Hopper
            — after rollback: Grace Hopper, had changes: false
            — edit sheet open: the sheet says 95000, the view context says 90000
            — edit sheet saved: the view context says 95000; Undo Edit Salary
            — after undo: 90000

            """
        #expect(result.stdout.hasSuffix(tour), "\(result.stdout)")
        #expect(result.stdout.contains("— after undoing 'Raise' (the rename is not undone)\n  Grace Hopper  salary 130000  dept Research\n  Ada King  salary 120000"))
    }

    @Test func theStaffListExamplePrintsEachDiffOfItsSectionedList() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = directory.appendingPathComponent("staff.strata")
        let result = try CLI.run("staff-list-example", [document.path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        // The whole output: a background import, another process's save (the program run
        // again with --edit, picked up by the document's watcher: only what it changed is
        // reported) and an edit sheet's save, each one diff of the list.
        let expected = """
            list: Engineering: Lovelace | Sales: Hopper
            diff after the background import:
              section insert [1] Research
              insert Dijkstra [0.0]
              insert Babbage [1.0]
              insert Turing [1.1]
            list: Engineering: Dijkstra, Lovelace | Research: Babbage, Turing | Sales: Hopper
              (other process: renamed Sales to Field Sales, moved Hopper to Research, removed Babbage)
            diff after the other process's save:
              delete Babbage [1.0]
              section delete [2] Sales
              move Hopper [2.0] -> [1.0]
            list: Engineering: Dijkstra, Lovelace | Research: Hopper, Turing
            diff after the edit sheet's save:
              section insert [1] Field Sales
              insert Liskov [1.0]
              move Turing [1.1] -> [0.2]
              update Lovelace [0.1] -> [0.1]
            list: Engineering: Dijkstra, Lovelace, Turing | Field Sales: Liskov | Research: Hopper
            undo in the view context: Undo Edit Staff
            diff after the view context's save (new objects get permanent IDs):
              update Liskov [1.0] -> [1.0]
            reopened: Engineering: Dijkstra, Lovelace, Turing | Field Sales: Liskov | Research: Hopper

            """
        #expect(result.stdout == expected, "\(result.stdout)")
        // The document it leaves opens in the CLI with the edit sheet's newcomer.
        let count = try CLI.run("strata", ["fetch", document.path, "Employee", "--where", "department.name == 'Field Sales'", "--count"])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("1"), "\(count.stdout)")
    }
}
