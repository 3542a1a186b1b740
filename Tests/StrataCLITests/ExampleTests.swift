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
    }
}
