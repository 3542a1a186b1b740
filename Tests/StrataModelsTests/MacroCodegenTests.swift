import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// `strata codegen --style macro`: the classes it writes for a JSON model type-check with
/// the macros of this build, and say what the JSON says.
@Suite("Macro-style codegen")
struct MacroCodegenTests {
    /// The repository (this file is Tests/StrataModelsTests/MacroCodegenTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Type-checks files against the built StrataModels module, expanding the macros with
    /// the plugin this build made.
    static func typecheck(_ files: [URL]) throws -> CommandResult {
        let sources = repository.appendingPathComponent("Sources")
        let plugin = productsDirectory.appendingPathComponent("StrataMacros-tool").path
        return try CLI.run("/usr/bin/env", ["swiftc", "-typecheck", "-swift-version", "6",
                                            "-I", productsDirectory.appendingPathComponent("Modules").path,
                                            "-I", sources.appendingPathComponent("CSQLite").path,
                                            "-I", sources.appendingPathComponent("CLZ4").path,
                                            "-load-plugin-executable", plugin + "#StrataMacros"] + files.map(\.path))
    }

    /// Runs `strata codegen --style macro` on a JSON model written into a new sandbox; the
    /// sandbox (the caller keeps it alive) and the folder the classes were written to.
    static func generate(_ json: String, file: String) throws -> (sandbox: TemporaryDirectory, out: URL) {
        let sandbox = try TemporaryDirectory()
        let modelFile = sandbox.file(file)
        try Data(json.utf8).write(to: modelFile)
        let out = sandbox.file("Generated")
        let result = try CLI.run("strata", ["codegen", modelFile.path, "--style", "macro", "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        return (sandbox, out)
    }

    @Test("The classes written for a JSON model declare its schema and type-check")
    func staffModelClasses() throws {
        let (sandbox, out) = try Self.generate(staffJSON, file: "Staff.json")
        defer { withExtendedLifetime(sandbox) {} }
        let employee = try String(contentsOf: out.appendingPathComponent("Employee.swift"), encoding: .utf8)
        #expect(employee.contains("@Entity\nfinal class Employee: Person {"))
        #expect(employee.contains("    var salary: Int64? = 50000\n"))
        #expect(employee.contains("    var active: Bool = true\n"))
        #expect(employee.contains("    @Attribute(.transformable) var address: Data?\n"))
        #expect(employee.contains("    @Relationship(inverse: \\Employee.manager) var reports: [Employee]\n"))
        // The inverse is named on one side only (both would be a circular reference).
        #expect(employee.contains("    var department: Department?\n"))
        #expect(employee.contains("    var manager: Employee?\n"))
        #expect(employee.contains("    #UniquenessConstraint<Employee>([\\.firstName, \\.lastName])\n"))
        #expect(employee.contains("    #FetchIndex<Employee>([\\.salary, \\.startDate], name: \"bySalaryStartDate\")\n"))
        let person = try String(contentsOf: out.appendingPathComponent("Person.swift"), encoding: .utf8)
        #expect(person.contains("@Entity(isAbstract: true)\nclass Person: ManagedObject {"))
        #expect(person.contains("    @Transient var nickname: String?\n"))
        #expect(person.contains("    @Attribute(.indexed, minLength: 1) var lastName: String\n"))
        let department = try String(contentsOf: out.appendingPathComponent("Department.swift"), encoding: .utf8)
        #expect(department.contains("    @Relationship(deleteRule: .cascade, inverse: \\Employee.department) var employees: Set<Employee>\n"))

        let files = ["Person.swift", "Employee.swift", "Department.swift"].map { out.appendingPathComponent($0) }
        let compiled = try Self.typecheck(files)
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    @Test("Derived and composite attributes and fetched properties are written with the macros and type-check")
    func derivedCompositeAndFetched() throws {
        let (sandbox, out) = try Self.generate(teamsJSON, file: "Teams.json")
        defer { withExtendedLifetime(sandbox) {} }
        let team = try String(contentsOf: out.appendingPathComponent("Team.swift"), encoding: .utf8)
        #expect(team.contains("    @Attribute(derivation: \"members.@count\") var size: Int64\n"))
        #expect(team.contains("    @Attribute(derivation: \"canonical:(name)\") var searchName: String?\n"))
        #expect(team.contains("""
                @Composite
                struct Venue: Equatable {
                    @Attribute(minLength: 1) var city: String
                    @Attribute(minValue: 0) var capacity: Int32 = 100
                    @Composite
                    struct Geo: Equatable {
                        var lat: Double?
                        var lon: Double?
                    }
                    var geo: Geo?
                }
                var home: Venue?

            """))
        #expect(team.contains("    #FetchedProperty(\"veterans\", entity: Player.self, predicate: \"team == $FETCH_SOURCE AND age > 30\")\n"))
        let files = ["Team.swift", "Player.swift"].map { out.appendingPathComponent($0) }
        let compiled = try Self.typecheck(files + [try Self.usage(in: sandbox)])
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    /// A file that uses what the classes declare, so that the type-check covers the
    /// accessors the macros generate.
    private static func usage(in sandbox: TemporaryDirectory) throws -> URL {
        let file = sandbox.file("Usage.swift")
        try Data("""
            import StrataModels
            func use(_ team: Team) throws -> (Int64, String?, Double?, [Player]) {
                team.home = Team.Venue(city: "Oslo", capacity: 5, geo: Team.Venue.Geo(lat: 59.9, lon: 10.7))
                return (team.size, team.home?.city, team.home?.geo?.lat, try team.veterans)
            }
            """.utf8).write(to: file)
        return file
    }

    @Test("A non-optional property whose type has no null value needs an initial value: the compiler says so")
    func nonOptionalWithoutInitialValue() throws {
        let sandbox = try TemporaryDirectory()
        let file = sandbox.file("Ticket.swift")
        try Data("""
            import StrataModels
            enum Priority: String, Codable { case low, high }
            @Entity final class Ticket: ManagedObject {
                var priority: Priority
                var fallback: Priority = .low
                var maybe: Priority?
            }
            """.utf8).write(to: file)
        let compiled = try Self.typecheck([file])
        #expect(compiled.status != 0)
        #expect(compiled.stderr.contains("a non-optional property of this type needs an initial value (or make it optional)"))
        // Only `priority` is refused: the others have something to read.
        let source = try String(contentsOf: file, encoding: .utf8)
        try Data(source.replacingOccurrences(of: "    var priority: Priority\n", with: "").utf8).write(to: file)
        let without = try Self.typecheck([file])
        #expect(without.status == 0, "\(without.stderr)")
    }

    @Test("What the macros cannot declare is an error naming the entity and property")
    func unsupportedModel() throws {
        let sandbox = try TemporaryDirectory()
        let modelFile = sandbox.file("Descending.json")
        try Data("""
            {"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Team", "attributes": [
              {"name": "rank", "type": "integer64"}],
              "fetchIndexes": [{"name": "byRank", "elements": [{"property": "rank", "order": "descending"}]}]}]}
            """.utf8).write(to: modelFile)
        let result = try CLI.run("strata", ["codegen", modelFile.path, "--style", "macro", "--out", sandbox.file("Out").path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Team.byRank: a fetch index with descending or R-tree elements cannot be declared with the macros"))
    }
}

/// A model with derived and composite attributes and a fetched property.
private let teamsJSON = """
    {"format": "strata-model", "formatVersion": 1, "entities": [
      {"name": "Team", "attributes": [
        {"name": "name", "type": "string", "optional": false},
        {"name": "size", "type": "integer64", "optional": false, "derivation": "members.@count"},
        {"name": "searchName", "type": "string", "derivation": "canonical:(name)"}],
       "composites": [{"name": "home", "typeName": "Venue", "elements": [
        {"name": "city", "type": "string", "optional": false, "minLength": 1},
        {"name": "capacity", "type": "integer32", "optional": false, "default": 100, "minValue": 0},
        {"name": "geo", "typeName": "Geo", "elements": [{"name": "lat", "type": "double"}, {"name": "lon", "type": "double"}]}]}],
       "relationships": [{"name": "members", "destination": "Player", "toMany": true, "inverse": "team"}],
       "fetchedProperties": [{"name": "veterans", "entity": "Player", "predicate": "team == $FETCH_SOURCE AND age > 30"}]},
      {"name": "Player", "attributes": [{"name": "age", "type": "integer16"}],
       "relationships": [{"name": "team", "destination": "Team", "inverse": "members"}]}]}
    """
