import Foundation
import Strata
import Testing

/// `strata codegen`: the generated classes of every fixture model compile against the
/// Strata module of this build, and the Employees example's `@Entity` classes declare the
/// example model.
@Suite struct CodegenCommand {
    /// The repository (this file is Tests/StrataCLITests/CodegenCommandTests.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Type-checks Swift files against the built Strata module (`Modules/` beside the
    /// programs; the C modules it imports from their module maps in Sources/).
    static func typecheck(_ files: [URL]) throws -> CommandResult {
        let sources = repository.appendingPathComponent("Sources")
        return try CLI.run("/usr/bin/env", ["swiftc", "-typecheck", "-swift-version", "6",
                                            "-I", productsDirectory.appendingPathComponent("Modules").path,
                                            "-I", sources.appendingPathComponent("CSQLite").path,
                                            "-I", sources.appendingPathComponent("CLZ4").path] + files.map(\.path))
    }

    static func swiftFiles(_ directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static let fixtures: [String] = {
        let directory = repository.appendingPathComponent("Tests/StrataTests/Fixtures/xcdatamodels")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".xml") }.sorted().map { directory.appendingPathComponent($0).path }
    }()

    @Test func thereAreFixtureModels() {
        #expect(Self.fixtures.count >= 6)
    }

    @Test(arguments: fixtures + ["--example employees", "--example employees --public"])
    func generatedClassesCompile(_ model: String) throws {
        let sandbox = try TemporaryDirectory()
        let out = sandbox.path("Generated")
        let arguments = model.hasPrefix("--") ? model.split(separator: " ").map(String.init) : [model]
        let result = try CLI.run("strata", ["codegen"] + arguments + ["--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try Self.swiftFiles(URL(fileURLWithPath: out))
        #expect(!files.isEmpty)
        #expect(result.stdout.contains("Wrote \(files.count) file"))
        let compiled = try Self.typecheck(files)
        #expect(compiled.status == 0, "\(model): \(compiled.stderr)")
    }

    @Test("composites, nested ones too, generate typed structs that compile and are used as values")
    func compositesGenerateNestedStructs() throws {
        let fixtures = Self.repository.appendingPathComponent("Tests/StrataTests/Fixtures/composites")
        let cases: [(model: String, use: String)] = [
            ("Shipping.xml", "func use(_ site: Site) { site.address = Site.Address(city: \"Oslo\", geo: Site.Address.Geo(lat: 59.9, lon: 10.7)); let lat: Double? = site.address?.geo?.lat; _ = lat; _ = Site.address.composite(\"geo\") }"),
            ("Places.xml", "func use(_ customer: Customer, _ depot: Depot) { customer.address = nil; depot.location = Depot.Location(city: \"Oslo\", floor: 3); let city: String? = depot.location?.city; _ = city }"),
        ]
        for (model, use) in cases {
            let sandbox = try TemporaryDirectory()
            let out = sandbox.path("Generated")
            let result = try CLI.run("strata", ["codegen", fixtures.appendingPathComponent(model).path, "--out", out])
            #expect(result.status == 0, "\(result.stderr)")
            let usage = URL(fileURLWithPath: sandbox.path("Use.swift"))
            let text: String = "import Strata\n" + use + "\n"
            try Data(text.utf8).write(to: usage)
            let compiled = try Self.typecheck(try Self.swiftFiles(URL(fileURLWithPath: out)) + [usage])
            #expect(compiled.status == 0, "\(model): \(compiled.stderr)")
        }
    }

    @Test func aJSONModelWithAwkwardNamesCompilesAndKeepsTheModelsNames() throws {
        let sandbox = try TemporaryDirectory()
        let model = """
            {"format": "strata-model", "formatVersion": 1, "entities": [
              {"name": "Item", "representedClassName": ".CatalogItem", "attributes": [
                {"name": "hasFault", "type": "string", "optional": false},
                {"name": "default", "type": "boolean"},
                {"name": "count", "type": "integer16"},
                {"name": "price", "type": "decimal", "optional": false},
                {"name": "payload", "type": "transformable"}],
               "relationships": [{"name": "parts", "destination": "Part", "toMany": true, "ordered": true, "inverse": "item"}]},
              {"name": "Part", "attributes": [{"name": "typedKeys", "type": "string"}],
               "relationships": [{"name": "item", "destination": "Item", "inverse": "parts"}]},
              {"name": "Gear", "parent": "Part", "attributes": [{"name": "teeth", "type": "integer32", "optional": false}]}
            ]}
            """
        try Data(model.utf8).write(to: URL(fileURLWithPath: sandbox.path("catalog.json")))
        let result = try CLI.strata("codegen", sandbox.path("catalog.json"), "--out", sandbox.path("out"))
        #expect(result.status == 0, "\(result.stderr)")
        let item = try String(contentsOfFile: sandbox.path("out/CatalogItem.swift"), encoding: .utf8)
        #expect(item.contains("final class CatalogItem: ManagedObject"))
        #expect(item.contains(#"static let hasFault = AttributeKey<String>("hasFault")"#))
        #expect(item.contains("var hasFaultValue: String"))
        #expect(item.contains("var `default`: Bool?"))
        #expect(item.contains("var price: Decimal {"))
        #expect(item.contains(#"static let parts = ToManyKey<Part>("parts")"#))
        #expect(item.contains("var parts: [Part]"))
        let part = try String(contentsOfFile: sandbox.path("out/Part.swift"), encoding: .utf8)
        #expect(part.contains("class Part: ManagedObject") && !part.contains("final class Part"))
        #expect(part.contains(#"static let typedKeysKey = AttributeKey<String?>("typedKeys")"#))
        #expect(part.contains("var item: CatalogItem?"))
        let gear = try String(contentsOfFile: sandbox.path("out/Gear.swift"), encoding: .utf8)
        #expect(gear.contains("final class Gear: Part"))
        #expect(gear.contains("super.typedKeys + generatedGearKeys"))
        let compiled = try Self.typecheck(try Self.swiftFiles(URL(fileURLWithPath: sandbox.path("out"))))
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    /// The Employees example declares its classes with `@Entity` over the library's
    /// example model (which keeps its fetch templates and fetched property, which classes do
    /// not declare): each class must declare exactly its entity's own attributes and
    /// relationships, in the model's order, with the Swift types codegen gives them.
    @Test func theEmployeesExampleClassesDeclareTheExampleModel() throws {
        let source = try String(contentsOf: Self.repository.appendingPathComponent("Examples/Employees/Model.swift"), encoding: .utf8)
        let declared = Self.declaredProperties(in: source)
        let model = ManagedObjectModel.employeesExample()
        #expect(declared.keys.sorted() == model.entities.map(\.name).sorted())
        for entity in model.entities {
            let parent = entity.superentity
            let inherited = Set((parent?.attributes.map(\.name) ?? []) + (parent?.relationships.map(\.name) ?? []))
            let attributes = entity.attributes.filter { !inherited.contains($0.name) }.map { attribute in
                "\(attribute.name): \(Self.swiftType(attribute.attributeType))\(attribute.isOptional ? "?" : "")"
            }
            let relationships = entity.relationships.filter { !inherited.contains($0.name) }.map { relationship in
                "\(relationship.name): " + (!relationship.isToMany ? "\(relationship.destinationEntityName)?"
                    : relationship.isOrdered ? "[\(relationship.destinationEntityName)]" : "Set<\(relationship.destinationEntityName)>")
            }
            #expect(declared[entity.name] == attributes + relationships,
                    "Examples/Employees/Model.swift's \(entity.name) does not declare the example model's \(entity.name)")
        }
    }

    /// The stored `var`s of each class in a file of `@Entity` classes, as `name: Type`
    /// (attributes such as `@Transient` dropped; computed and `lazy` properties are not the
    /// entity's).
    static func declaredProperties(in source: String) -> [String: [String]] {
        var properties: [String: [String]] = [:]
        var current: String?
        let classLine = /^(?:final )?class (\w+):/
        let varLine = /^    (?:@\w+(?:\([^)]*\))? )*var (\w+): ([^={]+?)(?: = .*)?$/
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if let match = line.firstMatch(of: classLine) {
                current = String(match.1)
                properties[String(match.1)] = []
            } else if let current, let match = line.wholeMatch(of: varLine) {
                properties[current, default: []].append("\(match.1): \(match.2)")
            }
        }
        return properties
    }

    /// The Swift type codegen declares for an attribute type (transformable values as `Data`).
    static func swiftType(_ type: AttributeType) -> String {
        switch type {
        case .integer16: "Int16"
        case .integer32: "Int32"
        case .integer64: "Int64"
        case .double: "Double"
        case .float: "Float"
        case .decimal: "Decimal"
        case .string: "String"
        case .boolean: "Bool"
        case .date: "Date"
        case .binaryData, .transformable: "Data"
        case .uuid: "UUID"
        case .uri: "URL"
        }
    }

    @Test func badInputIsAClearError() throws {
        let sandbox = try TemporaryDirectory()
        let missing = try CLI.strata("codegen", sandbox.path("nothing.json"), "--out", sandbox.path("out"))
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("nothing.json"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("out")))
        let mode = try CLI.strata("codegen", "--example", "employees", "--mode", "category")
        #expect(mode.status != 0)
        #expect(mode.stderr.contains("Unknown mode 'category'"), "\(mode.stderr)")
        try Data(#"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "A", "attributes": [{"name": "my-field", "type": "string"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: sandbox.path("bad.json")))
        let badName = try CLI.strata("codegen", sandbox.path("bad.json"), "--out", sandbox.path("out"))
        #expect(badName.status != 0)
        #expect(badName.stderr.contains("A.my-field"), "\(badName.stderr)")
    }
}
