import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// What a saved context keeps per object (docs/ARCHITECTURE.md, "Saves" and "Change
/// tracking on the hot path").
@Suite struct BigContextMemory {
    /// Inserts `count` employees of one department (undo off, as a bulk import) and saves.
    private func bulkSave(_ stack: DocumentStack, count: Int) throws -> [ManagedObject] {
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("Research", forKey: "name")
        var employees: [ManagedObject] = []
        for index in 0..<count {
            let employee = try stack.context.insertObject(forEntityName: "Employee")
            try employee.setValue(.string("First\(index)"), forKey: "firstName")
            try employee.setValue(.string("Last\(index)"), forKey: "lastName")
            try employee.setValue(.integer(Int64(index)), forKey: "salary")
            try employee.setObject(department, forKey: "department")
            employees.append(employee)
        }
        try stack.context.save()
        return employees
    }

    /// The buffer of a row of values, to tell shared storage from equal copies.
    private func buffer(_ values: [PropertyValue]) -> UnsafeRawPointer? {
        values.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    @Test func savedObjectsShareTheirRowWithTheDocumentOverlay() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        let employees = try bulkSave(stack, count: 50)
        let overlay = try stack.store.withOpenState { $0.overlay }
        for employee in employees {
            guard case .row(let row) = overlay.lookup(employee.objectID) else {
                Issue.record("no overlay row for \(employee.objectID)")
                continue
            }
            #expect(!employee.objectID.isTemporaryID)
            #expect(buffer(employee.storage.array) == buffer(row), "\(employee.objectID) keeps a copy of its row")
        }
        // A department's to-many is left its own (adding a member must not copy the set).
        let department = try #require(try employees[0].related("department"))
        guard case .row(let departmentRow) = overlay.lookup(department.objectID) else {
            Issue.record("no overlay row for the department")
            return
        }
        #expect(buffer(department.storage.array) != buffer(departmentRow))
    }

    @Test func changingASharedObjectLeavesTheStoredRowAlone() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        let employees = try bulkSave(stack, count: 10)
        try employees[3].setValue(.string("Changed"), forKey: "lastName")
        let other = stack.newContext()
        other.stalenessInterval = 0
        let id = employees[3].objectID
        #expect(try other.existingObject(with: id).string("lastName") == "Last3")
        try stack.context.save()
        let fresh = stack.newContext()
        #expect(try fresh.existingObject(with: id).string("lastName") == "Changed")
        #expect(try fresh.existingObject(with: employees[4].objectID).string("lastName") == "Last4")
        try stack.store.compact()
        let afterCompaction = stack.newContext()
        #expect(try afterCompaction.existingObject(with: id).string("lastName") == "Changed")
        #expect(try employees[4].string("lastName") == "Last4")
    }

    @Test func bulkSavedObjectsTheAppDropsAreReleased() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        stack.context.undoManager = nil
        var weakObjects: [WeakBox] = []
        do {
            let employees = try bulkSave(stack, count: 200)
            weakObjects = employees.map(WeakBox.init)
            #expect(weakObjects.allSatisfy { $0.object != nil })
        }
        #expect(weakObjects.allSatisfy { $0.object == nil })
        // Only the department, which an inverse keeps no reference to either, may linger
        // as long as something holds it; the employees are gone from the registry.
        #expect(stack.context.registeredObjects.filter { $0.entity.name == "Employee" }.isEmpty)
    }

    @Test func objectIDsAndValuesKeepTheirCompactLayout() {
        // An ID is two words (its interned scope and its key), and a value a 24-byte
        // stride: IDs with three inline fields took 24 bytes, and with the store tag
        // between the entity and the key a value took 32.
        #expect(MemoryLayout<ManagedObjectID>.stride == 16)
        #expect(MemoryLayout<PropertyValue>.stride == 24)
        // A log operation, five words: its case rides in the scope pointer's spare bits
        // (why scopes are held by a table LeakSanitizer can see; ObjectIDScope).
        #expect(MemoryLayout<ChangeOperation>.stride == 40)
    }

    @Test func aCompactionWritesWithItsOwnPageCacheAndRestoresTheConfiguredOne() throws {
        var configuration = manualCompaction()
        configuration.pageCacheSize = 32 << 20
        configuration.compactionPageCacheSize = 4 << 20
        let stack = try DocumentStack(configuration: configuration)
        stack.context.undoManager = nil
        _ = try bulkSave(stack, count: 10_500)   // past the 10,000 rows between progress calls
        func cacheKiB(_ connection: SQLiteConnection) throws -> SQLiteValue? {
            try connection.prepare("PRAGMA cache_size").rows().first?.first
        }
        var during: [SQLiteValue?] = []
        let after = try stack.store.withOpenState { state in
            let connection = state.connection
            #expect(try cacheKiB(connection) == .integer(-32_768))
            _ = try state.compact(configuration: configuration) { _, _ in during.append(try? cacheKiB(connection)) }
            return try cacheKiB(connection)
        }
        #expect(!during.isEmpty)
        #expect(during.allSatisfy { $0 == .integer(-4_096) })
        #expect(after == .integer(-32_768))
    }

    @Test func registryEntriesAreOneWord() {
        // The object's address alone (an identifier beside it took a second word: 8 MiB of a
        // million-object context).
        #expect(MemoryLayout<WeakObject?>.stride == 8)
    }

    @Test func keysFollowTheOrderInWhichNewRecordsAppearPerRootEntity() throws {
        let stack = try DocumentStack(configuration: manualCompaction())
        var departments: [ManagedObject] = []
        var employees: [ManagedObject] = []
        for index in 0..<3 {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("D\(index)"), forKey: "name")
            departments.append(department)
            for inner in 0..<2 {
                let employee = try stack.context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string("F\(index)\(inner)"), forKey: "firstName")
                try employee.setValue(.string("L\(index)\(inner)"), forKey: "lastName")
                try employee.setObject(department, forKey: "department")
                employees.append(employee)
            }
        }
        try stack.context.save()
        #expect(departments.map(\.objectID.primaryKey) == [1, 2, 3])
        #expect(employees.map(\.objectID.primaryKey) == [1, 2, 3, 4, 5, 6])
        let more = try stack.context.insertObject(forEntityName: "Department")
        try more.setValue("D3", forKey: "name")
        try stack.context.save()
        #expect(more.objectID.primaryKey == 4)
    }
}

/// A weak reference to an object, to see it released.
private final class WeakBox {
    weak var object: ManagedObject?
    init(_ object: ManagedObject) { self.object = object }
}
