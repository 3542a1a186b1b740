import Foundation
import Testing

/// `strata codegen` for models whose names clash with Swift keywords and with the
/// standard-library, Foundation and Strata types the generated code uses (issue 32, item
/// 11): the output compiles against the Strata module of this build, with real `swiftc`.
@Suite struct CodegenHostileNames {
    /// Generates the model's classes (`extra`: more `strata codegen` options) and type-checks
    /// them with `use`, a file of code using them.
    private func generateAndCompile(_ model: String, extra: [String] = [], use: String? = nil) throws -> (generated: [URL], compiled: CommandResult) {
        let sandbox = try TemporaryDirectory()
        try Data(model.utf8).write(to: URL(fileURLWithPath: sandbox.path("model.json")))
        let out = sandbox.path("out")
        let result = try CLI.run("strata", ["codegen", sandbox.path("model.json"), "--out", out] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        var files = try CodegenCommand.swiftFiles(URL(fileURLWithPath: out))
        if let use {
            let usage = URL(fileURLWithPath: sandbox.path("Use.swift"))
            try Data(("import Foundation\nimport Strata\n" + use + "\n").utf8).write(to: usage)
            files.append(usage)
        }
        let compiled = try CodegenCommand.typecheck(files)
        // The directory goes with the sandbox: read what the checks need now.
        return (try CodegenCommand.swiftFiles(URL(fileURLWithPath: out)), compiled)
    }

    /// The issue's reproduction: entities named `String` and `Int64`, whose keys must still
    /// be keys of Swift's `String` and `Int64`.
    @Test func entitiesNamedStringAndInt64Compile() throws {
        let model = """
            {"format": "strata-model", "formatVersion": 1, "entities": [
              {"name": "String", "attributes": [{"name": "name", "type": "string"}, {"name": "size", "type": "integer64", "optional": false}],
               "relationships": [{"name": "numbers", "destination": "Int64", "toMany": true, "inverse": "owner"}]},
              {"name": "Int64", "attributes": [{"name": "amount", "type": "integer64"}],
               "relationships": [{"name": "owner", "destination": "String", "inverse": "numbers"}]}
            ]}
            """
        let use = """
            let nameKey: Strata.AttributeKey<Swift.String?> = String.name
            let sizeKey: Strata.AttributeKey<Swift.Int64> = String.size
            let amountKey: Strata.AttributeKey<Swift.Int64?> = Int64.amount
            func use(_ owner: String, _ number: Int64) -> Swift.String? { number.owner = owner; owner.size = 3; return owner.name }
            """
        let (_, compiled) = try generateAndCompile(model, use: use)
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    static let hostileEntityNames = [
        "Date", "Data", "UUID", "URL", "Decimal", "Bool", "Double", "Float", "Int", "Int16", "Int32", "Set", "Array",
        "Optional", "Error", "Type", "Self", "Any", "Protocol", "class", "default", "Swift", "Foundation", "Strata",
        "AttributeKey", "ToOneKey", "ToManyKey", "CompositeKey", "TypedKeyDescription", "Hashable", "Sendable",
    ]

    /// A model of hostile names everywhere: entities, attributes (one of every type),
    /// relationships, composites and their elements; public and internal.
    static let hostileModel: String = {
        let attributes = """
            {"name": "Int64", "type": "integer64", "optional": false}, {"name": "Date", "type": "date"},
            {"name": "Data", "type": "binaryData"}, {"name": "UUID", "type": "uuid"}, {"name": "URL", "type": "uri"},
            {"name": "Decimal", "type": "decimal"}, {"name": "Bool", "type": "boolean"}, {"name": "Double", "type": "double"},
            {"name": "Float", "type": "float"}, {"name": "Int16", "type": "integer16"}, {"name": "Int32", "type": "integer32"},
            {"name": "String", "type": "string"}, {"name": "Swift", "type": "string"}, {"name": "Foundation", "type": "string"},
            {"name": "Strata", "type": "string"}, {"name": "AttributeKey", "type": "string"}, {"name": "ManagedObject", "type": "string"},
            {"name": "TypedKeyDescription", "type": "string"}, {"name": "default", "type": "boolean"}, {"name": "Type", "type": "string"},
            {"name": "Self", "type": "string"}, {"name": "Any", "type": "string"}, {"name": "Protocol", "type": "string"},
            {"name": "init", "type": "string"}, {"name": "typedKeys", "type": "string"}, {"name": "Hashable", "type": "string"},
            {"name": "Sendable", "type": "string"}
            """
        let composites = """
            [{"name": "Optional", "elements": [{"name": "String", "type": "string"}, {"name": "URL", "type": "uri"},
              {"name": "Swift", "elements": [{"name": "Double", "type": "double"}, {"name": "default", "type": "integer32"}]}]},
             {"name": "Set", "elements": [{"name": "Int64", "type": "integer64"}, {"name": "Strata", "type": "string"}]}]
            """
        var entities = [
            """
            {"name": "String", "attributes": [\(attributes)], "composites": \(composites),
             "relationships": [{"name": "Error", "destination": "Int64", "toMany": true, "inverse": "String"},
                               {"name": "Array", "destination": "Self", "inverse": "Swift"}]}
            """,
            """
            {"name": "Int64", "attributes": [{"name": "Data", "type": "binaryData"}],
             "relationships": [{"name": "String", "destination": "String", "inverse": "Error"}]}
            """,
            """
            {"name": "Self", "attributes": [{"name": "URL", "type": "uri"}],
             "relationships": [{"name": "Swift", "destination": "String", "inverse": "Array"}]}
            """,
        ]
        for name in hostileEntityNames where name != "Self" {
            entities.append(#"{"name": "\#(name)", "attributes": [{"name": "Date", "type": "date"}, {"name": "code", "type": "string"}]}"#)
        }
        entities.append(#"{"name": "Child", "parent": "Error", "attributes": [{"name": "Float", "type": "float"}]}"#)
        return #"{"format": "strata-model", "formatVersion": 1, "entities": ["# + entities.joined(separator: ",\n") + "]}"
    }()

    @Test(arguments: [[], ["--public"]])
    func aModelOfHostileNamesCompiles(_ options: [String]) throws {
        let (generated, compiled) = try generateAndCompile(Self.hostileModel, extra: options, use: """
            func use(_ text: String, _ error: Error) {
                let code: Swift.String? = error.code
                let date: Foundation.Date? = text.Date
                text.String = code
                text.SwiftValue = "s"
                text.SelfValue = text.TypeValue
                let numbers: [Int64] = text.Error
                let other: SelfEntity? = text.Array
                let double: Swift.Double? = text.Optional?.SwiftValue?.Double
                text.Set = .init(Int64: 3, StrataValue: "x")
                _ = (code, date, String.SwiftKey, String.SelfKey, text.`default`, double, numbers, other)
            }
            """)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let names = Set(generated.map(\.lastPathComponent))
        for renamed in ["TypeEntity", "SelfEntity", "AnyEntity", "ProtocolEntity", "classEntity", "defaultEntity",
                        "SwiftEntity", "FoundationEntity", "StrataEntity"] {
            #expect(names.contains(renamed + ".swift"), "\(names.sorted())")
        }
        #expect(names.contains("String.swift") && names.contains("Int64.swift") && names.contains("AttributeKey.swift"))
    }

    /// Without a clash the output keeps its plain spelling (the committed examples stay as
    /// they were: `theEmployeesExampleFilesAreWhatCodegenWritesToday`).
    @Test func plainModelsKeepUnqualifiedTypes() throws {
        let model = """
            {"format": "strata-model", "formatVersion": 1, "entities": [
              {"name": "Note", "attributes": [{"name": "text", "type": "string"}, {"name": "when", "type": "date"}]}]}
            """
        let sandbox = try TemporaryDirectory()
        try Data(model.utf8).write(to: URL(fileURLWithPath: sandbox.path("model.json")))
        #expect(try CLI.strata("codegen", sandbox.path("model.json"), "--out", sandbox.path("out")).status == 0)
        let text = try String(contentsOfFile: sandbox.path("out/Note.swift"), encoding: .utf8)
        #expect(text.contains(#"static let text = AttributeKey<String?>("text")"#), "\(text)")
        #expect(text.contains("var when: Date?"), "\(text)")
        #expect(!text.contains("Swift.") && !text.contains("Foundation.") && !text.contains("Strata."))
    }
}
