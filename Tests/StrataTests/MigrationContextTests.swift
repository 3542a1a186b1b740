import Foundation
import Testing
@testable import Strata

private typealias F = MigrationFixtures

/// Custom stages that map objects (``MigrationContext``): attributes split, data moved into
/// a new entity, two entities merged; verified and replayed across.
@Suite struct MigrationContextTests {
    /// Staff version 1: Department(title; employees) ↔ Employee(name required, street, city;
    /// department), and Contractor(fullName, rate).
    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Department", attributes: [F.attribute("title", .string)],
                              relationships: [F.relationship("employees", to: "Employee", toMany: true, inverse: "department")]),
            EntityDescription("Employee", attributes: [
                F.attribute("name", .string, optional: false), F.attribute("street", .string), F.attribute("city", .string),
            ], relationships: [F.relationship("department", to: "Department", inverse: "employees")]),
            EntityDescription("Contractor", attributes: [F.attribute("fullName", .string), F.attribute("rate", .integer32)]),
        ], versionIdentifier: "staff-1")
    }

    /// Staff version 2: Employee.name split into first (required, no default) and last;
    /// street and city moved into a new Address entity (a to-one both ways); Contractor
    /// merged into Employee (isContractor).
    static func v2() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Department", attributes: [F.attribute("title", .string)],
                              relationships: [F.relationship("employees", to: "Employee", toMany: true, inverse: "department")]),
            EntityDescription("Employee", attributes: [
                F.attribute("first", .string, optional: false), F.attribute("last", .string),
                F.attribute("isContractor", .boolean, optional: false, default: .boolean(false)),
            ], relationships: [
                F.relationship("department", to: "Department", inverse: "employees"),
                F.relationship("address", to: "Address", inverse: "employee"),
            ]),
            EntityDescription("Address", attributes: [F.attribute("street", .string), F.attribute("city", .string)],
                              relationships: [F.relationship("employee", to: "Employee", inverse: "address")]),
        ], versionIdentifier: "staff-2")
    }

    /// Version 3: version 2 with Address.zip (inferred).
    static func v3() throws -> ManagedObjectModel {
        let v2 = try Self.v2()
        return try ManagedObjectModel(entities: v2.entities.map { entity in
            EntityDescription(entity.name, attributes: entity.declaredAttributes + (entity.name == "Address" ? [F.attribute("zip", .string)] : []),
                              relationships: entity.declaredRelationships)
        }, versionIdentifier: "staff-3")
    }

    /// A version 1 document in three segments: the Lab with Ada (an address) and Plato (a
    /// single name, no address), Grace (a city only), and the contractor Alan.
    static func makeV1Document(_ url: URL) throws {
        let stack = try DocumentStack.create(url, model: try v1())
        let context = stack.context
        let lab = try context.insertObject(forEntityName: "Department")
        try lab.setValue("Lab", forKey: "title")
        for (name, street, city) in [("Ada Lovelace", "1 Main St", "London"), ("Grace Hopper", nil, "Arlington"), ("Plato", nil, nil)] {
            let employee = try context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string(name), forKey: "name")
            try employee.setValue(street.map { .string($0) } ?? .null, forKey: "street")
            try employee.setValue(city.map { .string($0) } ?? .null, forKey: "city")
            if name != "Grace Hopper" { try employee.setObject(lab, forKey: "department") }
        }
        try context.save()
        let alan = try context.insertObject(forEntityName: "Contractor")
        try alan.setValue("Alan Turing", forKey: "fullName")
        try alan.setValue(.integer(40), forKey: "rate")
        try context.save()
        try lab.setValue("Laboratory", forKey: "title")
        try context.save()
        try stack.store.close()
    }

    /// Splits "First Last" at the first space.
    static func split(_ value: PropertyValue) -> (PropertyValue, PropertyValue) {
        guard case .string(let name) = value else { return (.null, .null) }
        guard let space = name.firstIndex(of: " ") else { return (.string(name), .null) }
        return (.string(String(name[..<space])), .string(String(name[name.index(after: space)...])))
    }

    /// The stage from version 1 to 2.
    static func stage(to model: ManagedObjectModel) -> MigrationStage {
        .mapping(to: model) { context in
            let employees = try context.records(of: "Employee"), contractors = try context.records(of: "Contractor")
            let total = employees.count + contractors.count
            var done = 0
            for old in employees {
                var new = try #require(context.destination(for: old))
                (new["first"], new["last"]) = split(old["name"])
                try context.update(new)
                if !old["street"].isNull || !old["city"].isNull {
                    var address = try context.insert(entity: "Address")
                    address["street"] = old["street"]
                    address["city"] = old["city"]
                    try context.update(address)
                    try context.relate(new, "address", to: [address])
                }
                done += 1
                context.reportProgress(done: done, total: total)
            }
            for old in contractors {
                #expect(context.destination(for: old) == nil)   // Contractor is not in version 2
                var new = try context.insert(entity: "Employee")
                (new["first"], new["last"]) = split(old["fullName"])
                new["isContractor"] = .boolean(true)
                try context.update(new)
                done += 1
                context.reportProgress(done: done, total: total)
            }
        }
    }

    @Test func aMappingStageSplitsAnAttributeMovesDataIntoANewEntityAndMergesTwoEntities() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("staff.strata")
        try Self.makeV1Document(url)
        let v1 = try Self.v1(), v2 = try Self.v2()
        let before = try F.read(url, model: v1)
        var seen: [[Int]] = []
        let reports = try DocumentStore.migrate(at: url, stages: [Self.stage(to: v2)]) { seen.append([$0, $1, $2]) }
        #expect(reports.count == 1 && reports[0].didMigrate)
        #expect(Array(seen.prefix(4)) == [[0, 1, 4], [0, 2, 4], [0, 3, 4], [0, 4, 4]])
        #expect(seen.last?[1] == seen.last?[2])

        let records = try F.read(url, model: v2)
        let ada = try Self.employee("Ada", in: records), grace = try Self.employee("Grace", in: records)
        let plato = try Self.employee("Plato", in: records), alan = try Self.employee("Alan", in: records)
        #expect(records[ada]?["last"] == .value(.string("Lovelace")))
        #expect(records[plato]?["last"] == .value(.null) && records[plato]?["address"] == .value(.null))
        guard case .object(let adaAddress)? = records[ada]?["address"], case .object(let graceAddress)? = records[grace]?["address"] else {
            Issue.record("Ada and Grace have no address: \(records)")
            return
        }
        #expect(records[adaAddress]?["street"] == .value(.string("1 Main St")) && records[adaAddress]?["city"] == .value(.string("London")))
        #expect(records[adaAddress]?["employee"] == .object(ada))
        #expect(records[graceAddress]?["city"] == .value(.string("Arlington")) && records[graceAddress]?["street"] == .value(.null))
        #expect(records[graceAddress]?["employee"] == .object(grace))
        #expect(records[alan]?["last"] == .value(.string("Turing")) && records[alan]?["isContractor"] == .value(.boolean(true)))
        #expect(alan.key == 4)   // a new key above the migrated employees'
        #expect(records[ada]?["isContractor"] == .value(.boolean(false)))
        #expect(F.value(records, "Department", 1, "employees") == .objects([ada, plato].sorted(), ordered: false))
        #expect(records.keys.filter { $0.entity == "Employee" }.count == 4 && records.keys.filter { $0.entity == "Address" }.count == 2)

        // Saves after the migration, then verify and replay cross the custom stage.
        let stack = try DocumentStack.open(url, model: v2)
        let address = try stack.context.existingObject(with: try #require(try stack.store.objectIDs(for: v2.entity(named: "Address"), includingSubentities: false).first))
        try address.setValue("Paris", forKey: "city")
        let newcomer = try stack.context.insertObject(forEntityName: "Employee")
        try newcomer.setValue("Mary", forKey: "first")
        try stack.context.save()
        try stack.store.close()
        let after = try F.read(url, model: v2)
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
        #expect(verified.passed.contains { $0.contains("crosses the custom migration stage of model version 2") }, "\(verified.passed)")
        #expect(verified.passed.contains { $0.contains("gives exactly the") }, "\(verified.passed)")

        let versions = try DocumentStore.modelVersions(at: url)
        #expect(versions.map(\.isCustom) == [false, true] && versions[1].firstSegment == 4)
        let old = directory.url.appendingPathComponent("before.strata")
        try DocumentReplay.replay(url, through: 3, to: old)
        #expect(try DocumentStore.storedModel(at: old).versionHash == v1.versionHash)
        #expect(firstDifference(try F.read(old, model: v1), before) == nil)
        let new = directory.url.appendingPathComponent("after.strata")
        try DocumentReplay.replay(url, through: 4, to: new)
        #expect(try DocumentStore.storedModel(at: new).versionHash == v2.versionHash)
        #expect(firstDifference(try F.read(new, model: v2), after) == nil)
        #expect(try DocumentVerifier.verify(new).isValid)
    }

    struct Refused: Error {}

    /// The employee whose first name is `first`.
    static func employee(_ first: String, in records: [RecordKey: [String: ComparableValue]]) throws -> RecordKey {
        try #require(records.first { $0.key.entity == "Employee" && $0.value["first"] == .value(.string(first)) }?.key)
    }

    /// The destination employee whose first name is `first`.
    static func employee(_ first: String, in context: MigrationContext) throws -> MigrationRecord {
        try #require(try context.migratedRecords(of: "Employee").first { $0["first"] == .string(first) })
    }

    @Test func aThrowingOrIncompleteStageRollsBackAndBadCallsAreNamed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("staff.strata")
        try Self.makeV1Document(url)
        let v1 = try Self.v1(), v2 = try Self.v2()
        let before = try F.read(url, model: v1)
        let throwing: MigrationStage = .mapping(to: v2) { context in
            _ = try context.insert(entity: "Address")
            throw Refused()
        }
        #expect(throws: Refused.self) { try DocumentStore.migrate(at: url, stages: [throwing]) }
        // Nothing of the stage is left: the stored model and every record are version 1's.
        #expect(try DocumentStore.storedModel(at: url).versionHash == v1.versionHash)
        #expect(firstDifference(try F.read(url, model: v1), before) == nil)

        let incomplete: MigrationStage = .mapping(to: v2) { _ in }
        let missing = try #require(throws: StrataError.self) { try DocumentStore.migrate(at: url, stages: [incomplete]) }
        #expect(missing.code == .modelIncompatible && missing.context.blocking == ["Employee.first"], "\(missing.message)")
        #expect(try DocumentStore.storedModel(at: url).versionHash == v1.versionHash)

        // An inferred stage still refuses what only code can do.
        #expect(throws: StrataError.self) { try DocumentStore.migrate(at: url, to: v2) }

        let misuse: [(String, @Sendable (MigrationContext) throws -> Void)] = [
            ("no entity Shelf", { _ = try $0.insert(entity: "Shelf") }),
            ("is not an Address", { context in
                let employee = try #require(try context.migratedRecords(of: "Employee").first)
                try context.relate(employee, "address", to: [employee])
            }),
            ("not a record of the stage's destination model", { context in
                let old = try #require(try context.records(of: "Employee").first)
                try context.update(old)
            }),
            ("it is a to-one, given 2 records", { context in
                let employee = try #require(try context.migratedRecords(of: "Employee").first)
                try context.relate(employee, "address", to: [try context.insert(entity: "Address"), try context.insert(entity: "Address")])
            }),
        ]
        for (expected, body) in misuse {
            let error = try #require(throws: StrataError.self) { try DocumentStore.migrate(at: url, stages: [.mapping(to: v2, migrate: body)]) }
            #expect(error.code == .invalidArgument && error.message.contains(expected), "\(error.message)")
        }
        #expect(firstDifference(try F.read(url, model: v1), before) == nil)
    }

    @Test func deletingAndRelinkingKeepInversesAndTheListResumesAfterAStage() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("staff.strata")
        try Self.makeV1Document(url)
        let v2 = try Self.v2(), v3 = try Self.v3()
        // Stage 2 fails the first time: stage 1 stays committed, and running the list again
        // does not run stage 1's code again.
        let failing: MigrationStage = .custom(to: v3) { _, _ in throw Refused() }
        #expect(throws: Refused.self) { try DocumentStore.migrate(at: url, stages: [Self.stage(to: v2), failing]) }
        #expect(try DocumentStore.storedModel(at: url).versionHash == v2.versionHash)
        let neverAgain: MigrationStage = .mapping(to: v2) { _ in throw Refused() }
        let relink: MigrationStage = .mapping(to: v3) { context in
            // Ada's address moves to Plato (leaving Ada without one), Grace's is deleted.
            let ada = try Self.employee("Ada", in: context), grace = try Self.employee("Grace", in: context)
            let plato = try Self.employee("Plato", in: context)
            let adaAddress = try #require(ada["address"].objectIDs.first.flatMap(context.migratedRecord))
            let graceAddress = try #require(grace["address"].objectIDs.first.flatMap(context.migratedRecord))
            try context.relate(plato, "address", to: [adaAddress])
            try context.delete(graceAddress)
            var zip = try #require(context.migratedRecord(adaAddress.objectID))
            zip["zip"] = .string("N1")
            try context.update(zip)
        }
        #expect(try DocumentStore.migrate(at: url, stages: [neverAgain, relink]).count == 1)
        let records = try F.read(url, model: v3)
        let ada = try Self.employee("Ada", in: records), grace = try Self.employee("Grace", in: records)
        let plato = try Self.employee("Plato", in: records)
        #expect(records[ada]?["address"] == .value(.null) && records[grace]?["address"] == .value(.null))
        guard case .object(let address)? = records[plato]?["address"] else {
            Issue.record("Plato has no address: \(records)")
            return
        }
        #expect(records[address]?["employee"] == .object(plato))
        #expect(records[address]?["zip"] == .value(.string("N1")) && records[address]?["city"] == .value(.string("London")))
        #expect(records.keys.filter { $0.entity == "Address" } == [address])
        #expect(try DocumentStore.modelVersions(at: url).map(\.isCustom) == [false, true, true])
        let verified = try DocumentVerifier.verify(url)
        #expect(verified.isValid, "\(verified.problems)")
    }

    @Test func aContainerTravelsToBeforeAMigrationInTheOldModelAndItsUndoStopsAtIt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("staff.strata")
        try Self.makeV1Document(url)
        let v1 = try Self.v1(), v2 = try Self.v2()
        try DocumentStore.migrate(at: url, stages: [Self.stage(to: v2)])
        var options = PersistentContainer.Options()
        options.viewContextConcurrencyType = .confinement
        let container = try PersistentContainer(name: "Staff", model: v2, url: url, options: options)
        #expect(container.viewContext.undoManager?.undoCount == 0)   // the migration is not undoable
        let mary = try container.viewContext.insertObject(forEntityName: "Employee")
        try mary.setValue("Mary", forKey: "first")
        container.viewContext.undoManager?.setActionName("Add Mary")
        try container.viewContext.save()
        #expect(container.viewContext.undoManager?.undoCount == 1)

        let past = try container.timeTravel(toSegment: 3, copyingTo: directory.url.appendingPathComponent("past.strata"))
        #expect(past.model.versionHash == v1.versionHash)
        #expect(try past.viewContext.count(for: FetchRequest(entityName: "Contractor")) == 1)
        let names = try past.viewContext.fetch(FetchRequest(entityName: "Employee")).map { try $0.value(forKey: "name") }
        #expect(Set(names) == [.string("Ada Lovelace"), .string("Grace Hopper"), .string("Plato")])
        try past.close()
        let present = try container.timeTravel(toSegment: 4, copyingTo: directory.url.appendingPathComponent("present.strata"))
        #expect(present.model.versionHash == v2.versionHash)
        #expect(try present.viewContext.count(for: FetchRequest(entityName: "Employee")) == 5)
        #expect(try present.viewContext.count(for: FetchRequest(entityName: "Address")) == 2)
        try present.close()
        try container.close()

        // Reopened, the undo history holds Mary's insert and stops at the migration.
        let reopened = try PersistentContainer(name: "Staff", model: v2, url: url, options: options)
        #expect(reopened.viewContext.undoManager?.undoActionName == "Add Mary")
        try reopened.viewContext.undoManager?.undo()
        try reopened.viewContext.save()
        #expect(reopened.viewContext.undoManager?.canUndo == false)
        #expect(try reopened.viewContext.count(for: FetchRequest(entityName: "Employee")) == 4)
        try reopened.close()
    }
}
