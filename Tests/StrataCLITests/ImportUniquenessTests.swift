import Foundation
import Strata
import Testing

/// `strata import` into an entity with a uniqueness constraint, and `strata-log verify` on a
/// document whose records share a constrained key, through the real tools (issue 32, item 2).
@Suite struct ImportUniquenessTests {
    /// A document of `Item(code unique, name)` holding `code=a`.
    private func items(_ sandbox: TemporaryDirectory) throws -> String {
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("code", .string), AttributeDescription("name", .string)],
                              uniquenessConstraints: [["code"]]),
        ])
        let modelPath = sandbox.path("items.json")
        try model.jsonRepresentation().write(to: URL(fileURLWithPath: modelPath))
        let document = sandbox.path("items.strata")
        let created = try CLI.strata("new", document, "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        _ = try sandbox.insert(document, "Item", "code=a", "name=stored")
        return document
    }

    private func count(_ document: String) throws -> String {
        try CLI.strata("fetch", document, "Item", "--count").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The reproduction: `strata insert` refuses the stored key, and so does the import.
    @Test func importingAStoredKeyFailsLikeInsertAndWritesNothing() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        expectFailure(try CLI.strata("insert", document, "Item", "code=a"), mentions: ["Item(code)"])
        try write("code,name\nb,new\na,again\n", to: sandbox.path("one.csv"))
        let before = try sandbox.bytes("items.strata")
        let imported = try CLI.strata("import", document, sandbox.path("one.csv"), "--entity", "Item")
        expectFailure(imported, mentions: ["uniqueness constraint Item(code)", "row 2's code = \"a\" is taken by Item/p1", "Nothing was written"])
        #expect(try sandbox.bytes("items.strata") == before)
        #expect(try count(document) == "1")
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// 20,000 rows, every code twice: refused whole under the default policy; under
    /// objectTrump one record per code, the later row's values, and the stored one updated.
    @Test func twentyThousandRowsWithTenThousandRepeatedCodes() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        var csv = "code,name\n"
        for number in 0..<10_000 { csv += "c\(number),first\n" }
        for number in 0..<10_000 { csv += "c\(number),second\n" }
        csv += "a,imported\n"
        try write(csv, to: sandbox.path("many.csv"))
        let before = try sandbox.bytes("items.strata")

        let refused = try CLI.strata("import", document, sandbox.path("many.csv"), "--entity", "Item")
        expectFailure(refused, mentions: ["Item(code)", "row 10001's code = \"c0\" is taken by Item/p2", "and at least"])
        #expect(try sandbox.bytes("items.strata") == before)
        #expect(try count(document) == "1")

        let merged = try CLI.strata("import", document, sandbox.path("many.csv"), "--entity", "Item", "--merge-policy", "objectTrump")
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("Imported 10000 objects (Import Item); 10001 rows merged into records holding their keys."), "\(merged.stdout)")
        #expect(try count(document) == "10001")
        let seconds = try CLI.strata("fetch", document, "Item", "--where", "name == 'second'", "--count")
        #expect(seconds.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10000")
        let stored = try CLI.strata("fetch", document, "Item", "--where", "code == 'a'", "--format", "json")
        #expect(stored.stdout.contains("imported") && stored.stdout.contains("Item/p1"), "\(stored.stdout)")
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("no records share a key"), "\(verify.stdout)")
        // One undo takes the whole import back, the stored record's old name too.
        #expect(try CLI.strata("undo", document).status == 0)
        #expect(try count(document) == "1")
        let restored = try CLI.strata("fetch", document, "Item", "--where", "name == 'stored'", "--count")
        #expect(restored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test func storeTrumpKeepsTheStoredValuesAndABadPolicyIsAClearError() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        try write("code,name\na,ignored\nb,new\n", to: sandbox.path("two.csv"))
        let kept = try CLI.strata("import", document, sandbox.path("two.csv"), "--entity", "Item", "--merge-policy", "store-trump")
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try count(document) == "2")
        let stored = try CLI.strata("fetch", document, "Item", "--where", "code == 'a'", "--format", "json")
        #expect(stored.stdout.contains("\"stored\"") && !stored.stdout.contains("ignored"), "\(stored.stdout)")
        let bad = try CLI.strata("import", document, sandbox.path("two.csv"), "--entity", "Item", "--merge-policy", "newest")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--merge-policy must be error, storeTrump, objectTrump, rollback or overwrite, not 'newest'"), "\(bad.stderr)")
        let help = try CLI.strata("import", "--help")
        #expect(help.stdout.contains("--merge-policy"), "\(help.stdout)")
    }

    /// A batch update can still make records share a key; verify calls that an error.
    @Test func verifyFailsOnRecordsThatShareAConstrainedKey() throws {
        let sandbox = try TemporaryDirectory()
        let document = try items(sandbox)
        _ = try sandbox.insert(document, "Item", "code=b")
        let updated = try CLI.strata("update", document, "Item", "--where", "code == 'b'", "code='a'")
        #expect(updated.status == 0, "\(updated.stderr)")
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status != 0, "\(verify.stdout)")
        #expect(verify.stdout.contains("Item(code) is broken: Item/p1, Item/p2 share code = \"a\""), "\(verify.stdout)")
        #expect(verify.stderr.contains("failed verification"), "\(verify.stderr)")
    }
}
