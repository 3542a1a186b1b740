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

    /// A document whose records clash under a constraint declared after they were written:
    /// `strata info` and `strata-log verify` name the records (the index stays non-unique).
    @Test func infoAndVerifyNameRecordsThatClashUnderALaterConstraint() throws {
        let sandbox = try TemporaryDirectory()
        func members(_ constraints: [[String]]) throws -> ManagedObjectModel {
            try ManagedObjectModel(entities: [
                EntityDescription("Member", attributes: [AttributeDescription("email", .string)], uniquenessConstraints: constraints),
            ])
        }
        let modelPath = sandbox.path("members.json")
        try members([]).jsonRepresentation().write(to: URL(fileURLWithPath: modelPath))
        let document = sandbox.path("members.strata")
        #expect(try CLI.strata("new", document, "--model", modelPath).status == 0)
        _ = try sandbox.insert(document, "Member", "email=ada@example.com")
        _ = try sandbox.insert(document, "Member", "email=ada@example.com")
        // The app's newer model declares the constraint; its writable open adds the index.
        try DocumentStore(openingAt: URL(fileURLWithPath: document), model: try members([["email"]])).close()

        let info = try CLI.strata("info", document)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("Constraint index Member_unique_email_index is not UNIQUE: records share keys, email = \"ada@example.com\": Member 1, 2"), "\(info.stdout)")
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("note  Constraint index Member_unique_email_index is not UNIQUE"), "\(verify.stdout)")
    }
}
