import Foundation
import Testing
@testable import Strata

/// Uniqueness constraints in a document: the snapshot indexes behind the check (docs/SQL.md
/// §2d), and documents whose records predate a constraint.
@Suite struct UniquenessDocumentTests {
    @Test func eachConstraintGetsAnIndexOverItsColumnsInTheRootTable() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try DocumentStore(creatingAt: url, model: uniquenessModel).close()
        let rows = try sqlRows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE '%_unique_%' ORDER BY name")
        let names = rows.compactMap { row -> String? in if case .text(let name) = row[0] { name } else { nil } }
        // Employee's constraint lives in Person's table, which Employee shares.
        #expect(names == ["Person_unique_badge_index", "Person_unique_email_index", "Slot_unique_shelf_position_index",
                          "Team_unique_name_index"])
        let sql = rows.compactMap { row -> String? in if case .text(let sql) = row[1] { sql } else { nil } }
        #expect(sql.count == 4 && sql.allSatisfy { $0.hasPrefix("CREATE UNIQUE INDEX") })   // a new document's are UNIQUE
        let plan = try sqlRows(url, "EXPLAIN QUERY PLAN SELECT _pk FROM Slot WHERE shelf = 'A' AND position = 1")
        #expect(plan.contains { row in row.contains { if case .text(let step) = $0 { step.contains("INDEX Slot_unique_shelf_position_index (shelf=? AND position=?)") } else { false } } },
                "\(plan)")
    }

    private static func uniqueIndexNames(_ url: URL) throws -> [String] {
        try sqlRows(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%_unique_%' ORDER BY name")
            .compactMap { row -> String? in if case .text(let name) = row[0] { name } else { nil } }
    }

    private static func members(unique: Bool) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Member", attributes: [AttributeDescription("email", .string), AttributeDescription("name", .string)],
                              uniquenessConstraints: unique ? [["email"]] : []),
        ])
    }

    @Test func aDocumentWhoseRecordsBreakALaterConstraintOpensGainsItsIndexAndTheNextSaveOfTheKeyIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let before = try DocumentStack.create(url, model: Self.members(unique: false))
        let first = try insert("Member", ["email": "ada@example.com", "name": "One"], in: before.context)
        try insert("Member", ["email": "ada@example.com", "name": "Two"], in: before.context)
        try before.context.save()
        try before.store.close()
        let constrained = try Self.members(unique: true)
        #expect(constrained.versionHash == (try Self.members(unique: false)).versionHash)

        #expect(try Self.uniqueIndexNames(url).isEmpty)

        let after = try DocumentStack.open(url, model: constrained)
        defer { try? after.store.close() }
        // A writable open adds the constraint's index (the check is a lookup, not a scan).
        #expect(try Self.uniqueIndexNames(url) == ["Member_unique_email_index"])
        // Not UNIQUE: the records clash (UniquenessIndexTests covers the way back to UNIQUE).
        #expect(try after.store.constraintIndexStatus().map(\.isUnique) == [false])
        #expect(try after.context.count(for: FetchRequest(entityName: "Member")) == 2)
        // A change that writes no key saves; a new object with the duplicated key does not.
        let one = try #require(try after.context.fetch(FetchRequest(entityName: "Member", predicate: try FetchPredicate(format: "name == 'One'"))).first)
        #expect(one.objectID.uriRepresentation() == first.objectID.uriRepresentation())
        try one.setValue("Ada", forKey: "name")
        try after.context.save()
        try insert("Member", ["email": "ada@example.com", "name": "Three"], in: after.context)
        let error = strataError { try after.context.save() }
        #expect(error?.code == .constraintConflict, "\(String(describing: error))")
        #expect(error?.constraintConflicts.first?.databaseObject != nil)
    }
}
