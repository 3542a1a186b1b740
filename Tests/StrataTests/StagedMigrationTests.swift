import Foundation
import Testing
@testable import Strata

private typealias F = MigrationFixtures

@Suite struct StagedMigrationTests {
    /// Version 3: version 2 with Author.initial, which a custom stage computes from the name.
    static func v3() throws -> ManagedObjectModel {
        let v2 = try MigrationTests.v2()
        let author = v2.entitiesByName["Author"]!
        return try ManagedObjectModel(entities: v2.entities.map { entity in
            guard entity.name == "Author" else {
                return EntityDescription(entity.name, attributes: entity.declaredAttributes, relationships: entity.declaredRelationships,
                                         uniquenessConstraints: entity.uniquenessConstraints)
            }
            return EntityDescription("Author", attributes: author.declaredAttributes + [F.attribute("initial", .string)],
                                     relationships: author.declaredRelationships, uniquenessConstraints: author.uniquenessConstraints)
        }, versionIdentifier: "library-3")
    }

    struct Refused: Error {}

    @Test func aCustomStageWritesNewValuesFromOldRecordsAndAnInterruptedListResumes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("library.strata")
        try F.makeV1Document(url)
        let v2 = try MigrationTests.v2(), v3 = try Self.v3()
        let initials: MigrationStage = .custom(to: v3) { old, new in
            if case .string(let name) = old["name"] { new["initial"] = .string(String(name.prefix(1))) }
        }
        // A stage whose transform fails is rolled back: the document stays at version 2.
        let failing: MigrationStage = .custom(to: v3) { _, _ in throw Refused() }
        #expect(throws: Refused.self) { try DocumentStore.migrate(at: url, stages: [.lightweight(to: v2), failing]) }
        #expect(try DocumentStore.storedModel(at: url).versionHash == v2.versionHash)

        // Running the list again skips the stages already done.
        var seen: [Int] = []
        let reports = try DocumentStore.migrate(at: url, stages: [.lightweight(to: v2), initials]) { stage, done, total in
            seen.append(stage)
            #expect(done <= total)
        }
        #expect(reports.count == 1)
        #expect(Set(seen) == [1])
        let records = try F.read(url, model: v3)
        #expect(F.value(records, "Author", 1, "initial") == .value(.string("A")))
        #expect(F.value(records, "Author", 2, "initial") == .value(.string("B")))
        #expect(F.value(records, "Book", 1, "name") == .value(.string("Engines")))

        let versions = try DocumentStore.modelVersions(at: url)
        #expect(versions.map(\.isCustom) == [false, false, true])
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
        #expect(verified.passed.contains { $0.contains("custom migration stage") }, "\(verified.passed)")
        #expect(try DocumentStore.migrate(at: url, stages: [.lightweight(to: v2), initials]).isEmpty)

        // Replay stops before the custom stage, which it cannot run.
        let replayed = directory.url.appendingPathComponent("replayed.strata")
        #expect(try DocumentReplay.replay(url, through: 3, to: replayed) == 3)
        #expect(try DocumentStore.storedModel(at: replayed).versionHash == F.v1().versionHash)
    }
}
