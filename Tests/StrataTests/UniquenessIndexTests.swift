import Foundation
import Testing
@testable import Strata

/// The UNIQUE indexes behind uniqueness constraints (docs/SQL.md §2d): written in two phases
/// so swaps compact, kept non-unique while older records clash, and the save's check
/// batched into one store query per chunk of keys.
@Suite struct UniquenessIndexTests {
    private static let members = try! ManagedObjectModel(entities: [
        EntityDescription("Member", attributes: [AttributeDescription("email", .string), AttributeDescription("name", .string)],
                          uniquenessConstraints: [["email"]]),
    ])

    private static func email(_ object: ManagedObject) -> PropertyValue { (try? object.value(forKey: "email")) ?? .null }

    private static func indexSQL(_ url: URL, _ name: String) throws -> String? {
        try sqlRows(url, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = '\(name)'")
            .first.flatMap { row in if case .text(let sql) = row[0] { sql } else { nil } }
    }

    /// Swaps `a`'s and `b`'s keys and moves `c`'s onto `a`'s old one, all in one save
    /// under `.error`, then compacts: the save's check sees a valid end state, and the
    /// compaction's row-by-row writes do not trip the UNIQUE index half way.
    @Test(arguments: [0, 1])
    func keysSwappedInOneSaveSaveAndCompact(rebuildMinimum: Int) throws {
        var configuration = manualCompaction()
        if rebuildMinimum > 0 { configuration.indexRebuildMinimumRows = rebuildMinimum }   // drop and rebuild the indexes too
        let stack = try DocumentStack(model: Self.members, configuration: configuration)
        let a = try insert("Member", ["email": "a@x", "name": "A"], in: stack.context)
        let b = try insert("Member", ["email": "b@x", "name": "B"], in: stack.context)
        let c = try insert("Member", ["email": "c@x", "name": "C"], in: stack.context)
        try stack.context.save()
        _ = try stack.store.compact()
        #expect(try Self.indexSQL(stack.url, "Member_unique_email_index")?.hasPrefix("CREATE UNIQUE INDEX") == true)

        try a.setValue("b@x", forKey: "email")
        try b.setValue("c@x", forKey: "email")
        try c.setValue("a@x", forKey: "email")
        try stack.context.save()
        let report = try stack.store.compact()
        #expect(report.rowsWritten == 3)
        try stack.reopen(configuration: configuration)
        let fetched = try stack.context.fetch(FetchRequest(entityName: "Member", sortDescriptors: [FetchSortDescriptor("name")]))
        #expect(fetched.map(Self.email) == ["b@x", "c@x", "a@x"])
        #expect(try Self.indexSQL(stack.url, "Member_unique_email_index")?.hasPrefix("CREATE UNIQUE INDEX") == true)
        #expect(try DocumentVerifier.verify(stack.url).problems.isEmpty)
    }

    @Test func theUniqueIndexRefusesADuplicateWrittenPastTheCheck() throws {
        let stack = try DocumentStack(model: Self.members, configuration: manualCompaction())
        try insert("Member", ["email": "a@x"], in: stack.context)
        try stack.context.save()
        _ = try stack.store.compact()
        // SQLite itself now refuses a second row with the key (what the index guarantees).
        let error = strataError {
            try stack.store.withOpenState { state in
                try state.connection.execute("INSERT INTO \"Member\" (\"_pk\", \"email\") VALUES (99, 'a@x')")
            }
        }
        #expect(error.map(SnapshotSchema.isUniqueViolation) == true, "\(String(describing: error))")
        // NULLs never clash, as in the save's check (Core Data over SQLite: a nil key is no key).
        try insert("Member", ["name": "no email"], in: stack.context)
        try insert("Member", ["name": "no email either"], in: stack.context)
        try stack.context.save()
        _ = try stack.store.compact()
        #expect(try stack.context.count(for: FetchRequest(entityName: "Member")) == 3)
    }

    @Test func aDocumentWhoseRecordsClashKeepsANonUniqueIndexNamesThemAndGainsUniqueOnceTheyAreFixed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let loose = try ManagedObjectModel(entities: [
            EntityDescription("Member", attributes: [AttributeDescription("email", .string), AttributeDescription("name", .string)]),
        ])
        let before = try DocumentStack.create(url, model: loose)
        try insert("Member", ["email": "ada@x", "name": "One"], in: before.context)
        try insert("Member", ["email": "ada@x", "name": "Two"], in: before.context)
        try before.context.save()
        _ = try before.store.compact()
        try before.store.close()

        let after = try DocumentStack.open(url, model: Self.members)
        #expect(try Self.indexSQL(url, "Member_unique_email_index")?.hasPrefix("CREATE INDEX") == true)
        let status = try after.store.constraintIndexStatus()
        #expect(status.map(\.isUnique) == [false])
        #expect(status.first?.clashes == ["email = \"ada@x\": Member 1, 2"], "\(status)")
        let report = try DocumentVerifier.verify(url)
        #expect(report.problems.isEmpty)
        // verify reads the model recorded in the document (the one without the constraint:
        // constraints leave the version hash alone) and still names the records, from the index.
        #expect(report.notes.contains { $0.contains("Member_unique_email_index is not UNIQUE") && $0.contains("Member 1, 2") }, "\(report.notes)")
        // The records are fixed; the next writable open makes the index UNIQUE.
        let two = try #require(try after.context.fetch(FetchRequest(entityName: "Member", predicate: try FetchPredicate(format: "name == 'Two'"))).first)
        try two.setValue("two@x", forKey: "email")
        try after.context.save()
        _ = try after.store.compact()
        try after.reopen()
        #expect(try Self.indexSQL(url, "Member_unique_email_index")?.hasPrefix("CREATE UNIQUE INDEX") == true)
        #expect(try after.store.constraintIndexStatus().map(\.isUnique) == [true])
        try after.store.close()
    }

    @Test func aBatchUpdateThatMakesKeysClashStillCompactsAndVerifyFailsNamingTheRecords() throws {
        let stack = try DocumentStack(model: Self.members, configuration: manualCompaction())
        try insert("Member", ["email": "a@x", "name": "A"], in: stack.context)
        try insert("Member", ["email": "b@x", "name": "B"], in: stack.context)
        try stack.context.save()
        _ = try stack.store.compact()
        // A batch update writes past the context's check (as NSBatchUpdateRequest does).
        _ = try stack.context.executeBatch(BatchUpdateRequest(entityName: "Member", propertiesToUpdate: ["email": .constant(.string("same@x"))]))
        _ = try stack.store.compact()
        #expect(try Self.indexSQL(stack.url, "Member_unique_email_index")?.hasPrefix("CREATE INDEX") == true)
        #expect(try stack.store.constraintIndexStatus().first?.clashes.count == 1)
        // Records sharing a key the document's model declares unique break the model: an error.
        let report = try DocumentVerifier.verify(stack.url)
        #expect(!report.isValid)
        #expect(report.problems.contains { $0.hasPrefix("Member(email) is broken:") && $0.contains("Member/p1, Member/p2 share email = \"same@x\"") },
                "\(report.problems)")
    }

    /// The save's check looks keys up in chunks: 1,000 new keys are 4 store queries, not 1,000
    /// — and a clash with a stored record inside a chunk is still found.
    @Test(arguments: BatchStoreKind.allCases)
    func theCheckMakesOneStoreQueryPerChunkOfKeys(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind, model: Self.members)
        let seed = fixture.fresh()
        let stored = try insert("Member", ["email": "k500@x"], in: seed)
        try seed.save()
        let context = fixture.fresh()
        for number in 0..<1_000 { try insert("Member", ["email": .string("k\(number)@x")], in: context) }
        let check = try context.uniquenessCheck()
        #expect(check.storeQueries == 4)
        #expect(check.violations.count == 1)
        #expect(check.violations.first?.stored == stored.objectID)
        #expect(check.violations.first?.key == [.string("k500@x")])
    }
}
