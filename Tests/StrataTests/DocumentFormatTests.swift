import Foundation
import Testing
@testable import Strata

/// The snapshot layouts of document formats 1 and 2 (docs/FORMAT.md §11): a format 1
/// document made by the Strata before format 2 keeps opening, reading, fetching, saving
/// and compacting in its own layout; new documents get the format 2 layout.
@Suite struct DocumentFormats {
    /// `Fixtures/documents/format1-employees.strata`, made with the example model by the
    /// Strata of commit ba3e20e (format 1): departments Research and Sales, projects Apollo
    /// and Zeta, employees Ada, Charles, Grace and Alan compacted into the snapshot; then,
    /// uncompacted, Grace's raise, Charles deleted and Edsger inserted.
    static func format1Copy(in directory: TemporaryDirectory) throws -> URL {
        let fixture = try #require(Bundle.module.url(forResource: "format1-employees", withExtension: "strata",
                                                     subdirectory: "Fixtures/documents"))
        let url = directory.file()
        try FileManager.default.copyItem(at: fixture, to: url)
        return url
    }

    static func columns(_ url: URL, _ table: String) throws -> [String] {
        try sqlRows(url, "PRAGMA table_info(\"\(table)\")").compactMap { row in
            if case .text(let name) = row[1] { name } else { nil }
        }
    }

    static func names(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { object in
            if case .string(let name) = try object.value(forKey: object.entity.name == "Employee" ? "firstName" : "name") { name } else { "?" }
        }
    }

    /// The fetches and reads both formats must answer alike (the fixture's content).
    static func checkContent(_ stack: DocumentStack) throws {
        let context = stack.context
        let bySalary = FetchRequest(entityName: "Employee")
        bySalary.sortDescriptors = [FetchSortDescriptor("salary", ascending: false)]
        #expect(try names(context.fetch(bySalary)) == ["Ada", "Grace", "Edsger", "Alan"])
        let rich = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary > 140000 AND department.name == 'Research'"))
        #expect(try Set(names(context.fetch(rich))) == ["Ada", "Grace"])
        let people = FetchRequest(entityName: "Person")
        people.sortDescriptors = [FetchSortDescriptor("lastName")]
        #expect(try names(context.fetch(people)) == ["Edsger", "Grace", "Ada", "Alan"])
        let departments = FetchRequest(entityName: "Department")
        departments.sortDescriptors = [FetchSortDescriptor("name")]
        #expect(try names(context.fetch(departments)) == ["Research", "Sales"])
        let zetaMembers = FetchRequest(entityName: "Project", predicate: try FetchPredicate(format: "ANY members.lastName == 'Turing'"))
        #expect(try names(context.fetch(zetaMembers)) == ["Zeta"])
        let sales = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'Sales'"))
        let salesPeople = try context.fetch(sales)
        #expect(try Set(names(salesPeople)) == ["Alan", "Edsger"])

        let ada = try #require(try context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"))).first)
        #expect(try names(Array(ada.objects(forKey: "directReports"))) == ["Grace"])
        #expect(try names(Array(ada.objects(forKey: "projects"))) == ["Apollo"])
        let research = try #require(try ada.object(forKey: "department"))
        #expect(try research.value(forKey: "budget") == .decimal(Decimal(string: "1250000.5")!))
        #expect(try Set(names(Array(research.objects(forKey: "employees")))) == ["Ada", "Grace"])
        let zeta = try #require(try context.fetch(zetaMembers).first)
        #expect(try Set(names(Array(zeta.objects(forKey: "members")))) == ["Alan", "Edsger"])
        let counts = try stack.store.info().objectCounts
        #expect(counts["Employee"] == 4 && counts["Department"] == 2 && counts["Project"] == 2)
    }

    @Test func aFormat1DocumentReadsFetchesSavesAndCompactsInItsOwnLayout() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.format1Copy(in: directory)
        let stack = try DocumentStack.open(url, model: ManagedObjectModel.employeesExample(), configuration: manualCompaction())
        #expect(try stack.store.info().formatVersion == 1)
        try Self.checkContent(stack)

        // Save on top of the old layout, then fold everything into its snapshot tables.
        let mercury = try stack.context.insertObject(forEntityName: "Project")
        try mercury.setValue(.string("Mercury"), forKey: "name")
        let ada = try #require(try stack.context.fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Ada'"))).first)
        try ada.mutableSetValue(forKey: "projects").add(mercury)
        try ada.setValue(.integer(151_000), forKey: "salary")
        try stack.context.save()
        let beforeCompaction = try readEverything(stack.store)
        let report = try stack.store.compact()
        #expect(report.rowsWritten > 0 && report.rowsDeleted == 1)
        #expect(firstDifference(beforeCompaction, try readEverything(stack.store)) == nil)
        try stack.store.close()

        for table in ["Person", "Department", "Project"] {
            #expect(try Self.columns(url, table).prefix(3) == ["_pk", "_entity", "_version"], "\(table) keeps the format 1 columns")
        }
        let project = try #require(stack.model.entitiesByName["Project"])
        #expect(try sqlRows(url, "SELECT _entity, _version FROM Project WHERE name = 'Mercury'") == [[.integer(Int64(project.index)), .integer(1)]])
        #expect(try sqlRows(url, "SELECT _version FROM Person WHERE firstName = 'Ada'") == [[.integer(2)]])
        #expect(try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'formatVersion'") == [[.integer(1)]])

        let reopened = try DocumentStack.open(url, model: ManagedObjectModel.employeesExample(), configuration: manualCompaction())
        #expect(firstDifference(beforeCompaction, try readEverything(reopened.store)) == nil)
        let mercuryMembers = FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "ANY projects.name == 'Mercury'"))
        mercuryMembers.sortDescriptors = [FetchSortDescriptor("salary")]
        #expect(try Self.names(reopened.context.fetch(mercuryMembers)) == ["Ada"])
        try reopened.store.close()
        let verification = try DocumentVerifier.verify(url)
        #expect(verification.isValid, "\(verification.problems)")
    }

    @Test func newDocumentsLeaveOutTheEntityColumnOfOneEntityHierarchiesAndTheVersion() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try DocumentStack.create(url, model: ManagedObjectModel.employeesExample(), configuration: manualCompaction())
            #expect(try stack.store.info().formatVersion == DocumentFile.createdFormatVersion)
            try Self.insertFixtureContent(into: stack.context)
            try stack.context.save()
            try Self.checkContent(stack)
            let beforeCompaction = try readEverything(stack.store)
            _ = try stack.store.compact()
            #expect(firstDifference(beforeCompaction, try readEverything(stack.store)) == nil)
            try Self.checkContent(stack)
            // An edit on top of the compacted snapshot reads back through the overlay.
            let zeta = try #require(try stack.context.fetch(FetchRequest(entityName: "Project", predicate: try FetchPredicate(format: "name == 'Zeta'"))).first)
            try zeta.setValue(.string("Zeta 2"), forKey: "name")
            try stack.context.save()
            _ = try stack.store.compact()
            #expect(try sqlRows(url, "SELECT name FROM Project ORDER BY _pk") == [[.text("Apollo")], [.text("Zeta 2")]])
            try stack.store.close()
        }
        #expect(try Self.columns(url, "Person").prefix(3) == ["_pk", "_entity", "firstName"])
        #expect(try Self.columns(url, "Department").prefix(2) == ["_pk", "name"])
        #expect(try Self.columns(url, "Project").prefix(2) == ["_pk", "name"])
        #expect(try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'formatVersion'") == [[.integer(2)]])
        let verification = try DocumentVerifier.verify(url)
        #expect(verification.isValid, "\(verification.problems)")
    }

    @Test func aDocumentOfANewerFormatIsRefusedByItsNumber() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try DocumentStack.create(url, model: ManagedObjectModel.employeesExample()).store.close()
        do {
            let connection = try SQLiteConnection(path: url.path)
            defer { connection.close() }
            try DocumentFile.writeMeta(connection, key: "formatVersion", .integer(Int64(DocumentStore.formatVersion + 1)))
        }
        // A number the identity checksum does not cover is a damaged byte, not a newer file.
        let damaged = strataError { _ = try DocumentStore(openingAt: url, model: ManagedObjectModel.employeesExample()) }
        #expect(damaged?.code == .corruptDocument)
        #expect(damaged?.message.contains("damaged") == true, "\(damaged?.message ?? "")")
        do {
            // A newer Strata writes the checksum over its format number.
            let connection = try SQLiteConnection(path: url.path)
            defer { connection.close() }
            var values: [String: SQLiteValue] = [:]
            for row in try connection.prepare("SELECT key, value FROM strata_meta").rows() {
                if case .text(let key) = row[0] { values[key] = row[1] }
            }
            try DocumentFile.writeMeta(connection, key: Strata.DocumentIdentity.key, .text(Strata.DocumentIdentity.checksum(values)))
            try DocumentFile.writeMeta(connection, key: Strata.DocumentIdentity.copyKey, .text(Strata.DocumentIdentity.copy(values)))
        }
        let error = strataError { _ = try DocumentStore(openingAt: url, model: ManagedObjectModel.employeesExample()) }
        #expect(error?.code == .corruptDocument)
        #expect(error?.message.contains("written by a newer Strata (document format \(DocumentStore.formatVersion + 1))") == true, "\(error?.message ?? "")")
    }

    /// The fixture's current content (after its uncompacted changes), inserted afresh.
    static func insertFixtureContent(into context: ManagedObjectContext) throws {
        func insert(_ entity: String, _ values: [String: PropertyValue]) throws -> ManagedObject {
            let object = try context.insertObject(forEntityName: entity)
            for (key, value) in values { try object.setValue(value, forKey: key) }
            return object
        }
        let research = try insert("Department", ["name": .string("Research"), "budget": .decimal(Decimal(string: "1250000.50")!)])
        let sales = try insert("Department", ["name": .string("Sales")])
        let apollo = try insert("Project", ["name": .string("Apollo"), "deadline": .date(Date(timeIntervalSinceReferenceDate: 700_000_000))])
        let zeta = try insert("Project", ["name": .string("Zeta")])
        func employee(_ first: String, _ last: String, _ salary: Int64, _ department: ManagedObject) throws -> ManagedObject {
            let object = try insert("Employee", ["firstName": .string(first), "lastName": .string(last), "salary": .integer(salary)])
            try object.setObject(department, forKey: "department")
            return object
        }
        let ada = try employee("Ada", "Lovelace", 150_000, research)
        let grace = try employee("Grace", "Hopper", 143_000, research)
        let alan = try employee("Alan", "Turing", 120_000, sales)
        let edsger = try employee("Edsger", "Dijkstra", 131_000, sales)
        try grace.setObject(ada, forKey: "manager")
        try ada.mutableSetValue(forKey: "projects").add(apollo)
        try alan.mutableSetValue(forKey: "projects").add(zeta)
        try edsger.mutableSetValue(forKey: "projects").add(zeta)
    }
}
