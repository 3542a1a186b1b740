import Foundation
import Testing

/// Strata's own errors where SQLite's or the PostgreSQL driver's used to show (issue 32,
/// item 8): each case is one `strata: error:` line naming what is wrong, with no engine
/// message, no SQL, no driver internals and at most 200 characters of the user's input.
@Suite("strata translates engine errors")
struct EngineErrorTranslationTests {
    func expectOwnWords(_ result: CommandResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for fragment in engineFragments {
            #expect(!result.stderr.contains(fragment), "'\(fragment)' in: \(result.stderr.prefix(600))", sourceLocation: sourceLocation)
        }
        #expect(result.stderr.utf8.count < 600, "stderr: \(result.stderr.prefix(600))", sourceLocation: sourceLocation)
    }

    @Test("a model with 5,000 attributes or a name holding NUL is refused at validation")
    func modelLimits() throws {
        let sandbox = try TemporaryDirectory()
        let attributes = (0..<5_000).map { #"{"name": "a\#($0)", "type": "integer64"}"# }.joined(separator: ", ")
        let wide = sandbox.path("wide.json")
        try Data(#"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "A", "attributes": [\#(attributes)]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: wide))
        let tooWide = try CLI.strata("new", sandbox.path("wide.strata"), "--model", wide)
        expectFailure(tooWide, mentions: ["The model is invalid"])
        #expect(tooWide.stderr.contains("store 5000 properties in one table; a document holds at most 1997"), "\(tooWide.stderr.prefix(600))")
        expectOwnWords(tooWide)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("wide.strata")))

        let nul = sandbox.path("nul.json")
        try Data(#"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "A\u0000B", "attributes": [{"name": "x", "type": "string"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: nul))
        let withNUL = try CLI.strata("new", sandbox.path("nul.strata"), "--model", nul)
        expectFailure(withNUL, mentions: ["The model is invalid"])
        #expect(withNUL.stderr.contains(#"A\u{0}B"#) && withNUL.stderr.contains("NUL or another control character"), "\(withNUL.stderr)")
        expectOwnWords(withNUL)
    }

    @Test("--select with 3,000 columns, 5,000 parentheses and --sort with 1,200 keys are refused in a short line")
    func fetchLists() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let columns = Array(repeating: "salary", count: 3_000).enumerated().map { "salary AS c\($0.offset)" }.joined(separator: ", ")
        let select = try CLI.strata("fetch", document, "Employee", "--select", columns)
        expectFailure(select, mentions: ["propertiesToFetch has 3000 entries; at most 1000"])
        expectOwnWords(select)

        let parens = try CLI.strata("fetch", document, "Employee", "--select", String(repeating: "(", count: 5_000) + "salary" + String(repeating: ")", count: 5_000))
        #expect(parens.status != 0)
        expectOwnWords(parens)

        let sort = try CLI.run("strata", ["fetch", document, "Employee"] + Array(repeating: ["--sort", "salary"], count: 1_200).flatMap { $0 })
        expectFailure(sort, mentions: ["--sort is given 1200 times; at most 1000 are allowed"])   // before parsing (docs/LIMITS.md §5)
        expectOwnWords(sort)
    }

    @Test("remotes that are empty, a directory or a FIFO, and clone into '' are named, not SQLite I/O errors")
    func remotes() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        for verb in ["push", "pull", "sync"] {
            let empty = try CLI.strata(verb, document, "")
            expectFailure(empty, mentions: ["The remote is empty"])
            expectOwnWords(empty)
            let directory = try CLI.strata(verb, document, sandbox.url.path)
            expectFailure(directory, mentions: ["is a directory"])
            expectOwnWords(directory)
        }
        let fifo = sandbox.path("remote.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let toFIFO = try CLI.strata("push", document, fifo)
        expectFailure(toFIFO, mentions: ["is a FIFO (named pipe)"])
        let remote = sandbox.path("hub.strata-remote")
        #expect(try CLI.strata("push", document, remote).status == 0)
        let clone = try CLI.strata("clone", remote, "")
        #expect(clone.status != 0)
        #expect(clone.stderr.contains("The new document's path is empty"), "\(clone.stderr)")
        expectOwnWords(clone)
    }
}
