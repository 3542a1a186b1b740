import Foundation
import Testing

/// "Did you mean …?" for mistyped entity, property and command names, and the keys near
/// an object reference that names no record (README.md, "Command line").
@Suite("did you mean")
struct DidYouMeanTests {
    @Test("a mistyped entity is answered with the nearest one, in every command that takes one")
    func entities() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        expectFailure(try CLI.strata("fetch", document, "Employe"), mentions: ["'Employe'", "Did you mean 'Employee'?"])
        expectFailure(try CLI.strata("insert", document, "departement", "name=R"), mentions: ["Did you mean 'Department'?"])
        expectFailure(try CLI.strata("get", document, "Projet/p1"), mentions: ["Did you mean 'Project'?"])
        // Nothing near: no guess.
        let far = try CLI.strata("fetch", document, "Spaceship")
        expectFailure(far, mentions: ["Spaceship"])
        #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
    }

    @Test("a mistyped attribute or relationship is answered with the nearest property")
    func properties() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        expectFailure(try CLI.strata("insert", document, "Employee", "firstName=Ada", "salry=3"), mentions: ["'salry'", "Did you mean 'salary'?"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--where", "lastname == 'X'"), mentions: ["Did you mean 'lastName'?"])
        expectFailure(try CLI.strata("fetch", document, "Employee", "--sort", "salray"), mentions: ["Did you mean 'salary'?"])
        expectFailure(try CLI.strata("update", document, "Department/p1", "budgte=3"), mentions: ["Did you mean 'budget'?"])
        let csv = sandbox.path("people.csv")
        try Data("firstName,lastNme\nAda,Lovelace\n".utf8).write(to: URL(fileURLWithPath: csv))
        expectFailure(try CLI.strata("import", document, csv, "--entity", "Employee"), mentions: ["Did you mean 'lastName'?"])
    }

    @Test("a mistyped command is answered with the nearest command, swapped letters included")
    func commands() throws {
        let fetch = try CLI.strata("fecth", "x.strata", "Employee")
        #expect(fetch.status == 64)
        expectFailure(fetch, mentions: ["Did you mean 'fetch'?"])
        expectFailure(try CLI.strataLog("verfy", "x.strata"), tool: "strata-log", mentions: ["Did you mean 'verify'?"])
        let far = try CLI.strata("frobnicate")
        #expect(!far.stderr.contains("Did you mean"), "\(far.stderr)")
    }

    @Test("an object key that names no record is answered with the keys nearby, server-made keys too")
    func nearbyKeys() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for name in ["A", "B", "C", "D"] { _ = try sandbox.insert(document, "Department", "name=\(name)") }
        let missing = try CLI.strata("get", document, "Department/p7")
        expectFailure(missing, mentions: ["There is no object Department/p7", "Did you mean Department/p4, Department/p3, Department/p2?"])
        // A key as a PostgreSQL replica makes them (docs/POSTGRES.md), one digit off.
        let big = try CLI.strata("get", document, "Department/p2199023255552")
        expectFailure(big, mentions: ["Did you mean Department/p4"])
        let none = try CLI.strata("get", document, "Project/p1")
        expectFailure(none, mentions: ["Project has no records"])
    }
}
