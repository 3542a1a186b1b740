import Foundation
import Strata
import Testing

/// `strata insert` into a document whose model declares a uniqueness constraint, through
/// the real tool.
@Suite struct ConstraintInsertTests {
    @Test func insertingADuplicateKeyPrintsTheConstraintErrorAndChangesNothing() throws {
        let sandbox = try TemporaryDirectory()
        let model = try ManagedObjectModel(entities: [
            EntityDescription("Member", attributes: [
                AttributeDescription("email", .string),
                AttributeDescription("name", .string),
            ], uniquenessConstraints: [["email"]]),
        ])
        let modelPath = sandbox.path("members.json")
        try model.jsonRepresentation().write(to: URL(fileURLWithPath: modelPath))
        let document = sandbox.path("members.strata")
        let created = try CLI.strata("new", document, "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try CLI.strata("info", document).stdout.contains("  unique    (email)"))
        let first = try sandbox.insert(document, "Member", "email=ada@example.com", "name=Ada")
        let before = try sandbox.bytes("members.strata")

        let duplicate = try CLI.strata("insert", document, "Member", "email=ada@example.com", "name=Augusta")
        expectFailure(duplicate, mentions: ["uniqueness constraint", "Member(email)", "email = \"ada@example.com\"",
                                            "is taken by \(first)"])
        #expect(try sandbox.bytes("members.strata") == before)
        let names = try CLI.strata("fetch", document, "Member", "--count")
        #expect(names.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        // Another key, and a member without one (nils never conflict), are saved.
        _ = try sandbox.insert(document, "Member", "email=grace@example.com")
        _ = try sandbox.insert(document, "Member", "name=Nobody")
        _ = try sandbox.insert(document, "Member", "name=Nobody Else")
        let count = try CLI.strata("fetch", document, "Member", "--count")
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "4")
    }
}
