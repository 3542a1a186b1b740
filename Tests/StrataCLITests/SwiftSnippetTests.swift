import Foundation
import StrataTestSupport
import Testing

/// The Swift in README.md and the DocC articles compiles against the Strata just built.
///
/// Each file's ```` ```swift ```` blocks become one function, in order, each block nested in
/// the one before (`do { … }`), so a block sees what earlier blocks declared and may declare
/// the same name again, as a reader's next step would. `@Entity` classes go to the file's
/// top level (a macro that adds an extension needs a type at file scope), and the macros'
/// plugin built beside the products is loaded. What an article takes as given (a
/// context, a document URL…) is declared first, per file, below; it is only type-checked
/// (`swiftc -typecheck`), never run.
@Suite("the Swift snippets of README.md and the DocC articles compile")
struct SwiftSnippetTests {
    /// What each file's snippets take as given: the declarations its prose names.
    static let given: [String: String] = [
        "README.md": """
            let documentURL = URL(fileURLWithPath: "staff.strata")
            """,
        "EditingText.md": """
            let note: ManagedObject = given()
            """,
        "PersistentHistory.md": """
            let context: ManagedObjectContext = given()
            let document: DocumentStore = given()
            var lastSeen: PersistentHistoryToken? = nil
            """,
        "SeveralContexts.md": """
            let model: ManagedObjectModel = given()
            let coordinator: PersistentStoreCoordinator = given()
            let documentURL: URL = given()
            let viewContext: ManagedObjectContext = given()
            let adaID: ManagedObjectID = given()
            """,
        "StrataError.md": """
            let context: ManagedObjectContext = given()
            """,
        "TheDocumentFile.md": """
            let model: ManagedObjectModel = given()
            let url: URL = given()
            """,
        "UndoInAnEditor.md": """
            struct Selection: Codable, Sendable { var range: Range<Int> }
            struct TextView { func select(_ selection: Selection) {} }
            let model: ManagedObjectModel = given()
            let url: URL = given()
            let context: ManagedObjectContext = given()
            let undo: ContextUndoManager = given()
            let ada: ManagedObject = given()
            let research: ManagedObject = given()
            let note: ManagedObject = given()
            let text = "typed"
            let selection = Selection(range: 0..<5)
            let textView = TextView()
            """,
    ]

    static var files: [URL] {
        get throws {
            let catalog = ReadmeTests.packageRoot.appendingPathComponent("Sources/Strata/Strata.docc")
            let articles = try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
            return [ReadmeTests.packageRoot.appendingPathComponent("README.md")] + articles
        }
    }

    /// The ```` ```swift ```` blocks of a Markdown file.
    static func snippets(in markdown: String) -> [String] {
        var snippets: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" { current = [] } else if current != nil, trimmed == "```" {
                snippets.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return snippets
    }

    /// Splits a snippet's `@Entity` classes — from an `@Entity` line at the left margin to
    /// the line that closes their braces — from the rest of its lines.
    static func separatingDeclaredEntities(_ lines: [String]) -> (entities: [String], rest: [String]) {
        var entities: [String] = [], rest: [String] = []
        var depth = 0, inEntity = false, opened = false
        for line in lines {
            if !inEntity, line.hasPrefix("@Entity") { (inEntity, depth, opened) = (true, 0, false) }
            guard inEntity else {
                rest.append(line)
                continue
            }
            entities.append(line)
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            opened = opened || line.contains("{")
            if opened, depth <= 0 { inEntity = false }
        }
        return (entities, rest)
    }

    /// One Swift file: the imports, the `@Entity` classes, `given()`, then the snippets
    /// nested in one function.
    static func program(snippets: [String], given: String) -> String {
        var imports: Set<String> = ["import Foundation", "import Strata"]
        var entities = ""
        var body = ""
        for snippet in snippets {
            let lines = snippet.components(separatedBy: "\n")
            imports.formUnion(lines.filter { $0.hasPrefix("import ") })
            let (declared, rest) = separatingDeclaredEntities(lines.filter { !$0.hasPrefix("import ") })
            entities += declared.map { $0 + "\n" }.joined()
            body += "do {\n" + rest.joined(separator: "\n") + "\n"
        }
        body += String(repeating: "}\n", count: snippets.count)
        return imports.sorted().joined(separator: "\n") + """


            \(entities)
            func given<T>() -> T { fatalError("only type-checked") }

            func snippets() async throws {
            \(given)
            \(body)
            }

            """
    }

    @Test("every file's snippets type-check", arguments: try files.map(\.lastPathComponent))
    func snippetsCompile(file: String) throws {
        let url = try Self.files.first { $0.lastPathComponent == file }!
        let snippets = Self.snippets(in: try String(contentsOf: url, encoding: .utf8))
        guard !snippets.isEmpty else { return }
        let sandbox = try TemporaryDirectory()
        let source = sandbox.file("\(url.deletingPathExtension().lastPathComponent)Snippets.swift")
        try Self.program(snippets: snippets, given: Self.given[file] ?? "").write(to: source, atomically: true, encoding: .utf8)
        let products = builtExecutable("strata").deletingLastPathComponent()
        let root = ReadmeTests.packageRoot
        let result = try CLI.run("/usr/bin/env", [
            "swiftc", "-typecheck", "-swift-version", "6", source.path,
            "-I", products.appendingPathComponent("Modules").path,
            "-load-plugin-executable", products.appendingPathComponent("StrataMacros-tool").path + "#StrataMacros",
            "-Xcc", "-fmodule-map-file=" + root.appendingPathComponent("Sources/CSQLite/module.modulemap").path,
            "-Xcc", "-fmodule-map-file=" + root.appendingPathComponent("Sources/CLZ4/module.modulemap").path,
        ])
        let errors = result.stderr.components(separatedBy: "\n").filter { $0.contains("error:") }
        #expect(result.status == 0, """
            \(file): \(snippets.count) snippets do not compile:
            \(errors.prefix(20).joined(separator: "\n"))
            (the program: \(source.path))
            """)
    }
}
