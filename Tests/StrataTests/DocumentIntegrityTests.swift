import Foundation
import Testing
@testable import Strata

/// Runs SQL on a closed document's file.
private func execute(_ url: URL, _ sql: String, _ values: [SQLiteValue] = []) throws {
    let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
    defer { connection.close() }
    try connection.prepare(sql).run(values)
}

/// A closed document holding one department.
private func documentWithOneDepartment(in directory: TemporaryDirectory) throws -> URL {
    let url = directory.file()
    let stack = try DocumentStack.create(url, configuration: manualCompaction())
    let department = try stack.context.insertObject(forEntityName: "Department")
    try department.setValue("Research", forKey: "name")
    try stack.context.save()
    try stack.store.close()
    return url
}

/// The identity checksum, SQLite's quick check at open, and what opening a damaged
/// document says (docs/RELIABILITY.md, "Damaged documents").
@Suite struct DocumentIntegrityTests {
    @Test func aChangedStoreIdentifierIsRefusedAtOpenAndRestoredByRecover() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithOneDepartment(in: directory)
        let original = try DocumentStore.storedModel(at: url).versionHash
        let store = try DocumentStore(openingAt: url, model: sharedExampleModel)
        let identifier = store.identifier
        try store.close()
        #expect(original == sharedExampleModel.versionHash)
        var damaged = Array(identifier)
        damaged[5] = damaged[5] == "A" ? "B" : "A"
        try execute(url, "UPDATE strata_meta SET value = ? WHERE key = 'storeIdentifier'", [.text(String(damaged))])

        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) })
        #expect(error.code == .corruptDocument)
        #expect(error.message.contains("identity checksum") && error.message.contains("strata-log recover"), "\(error.message)")
        let report = try DocumentVerifier.verify(url)
        #expect(report.problems.contains { $0.contains("identity checksum does not match") }, "\(report.problems)")

        let recovery = try DocumentRecovery.recover(url)
        #expect(recovery.repairs.contains { $0.contains("storeIdentifier") }, "\(recovery.repairs)")
        let reopened = try DocumentStore(openingAt: url, model: sharedExampleModel)
        #expect(reopened.identifier == identifier)
        try reopened.close()
        #expect(try DocumentVerifier.verify(url).isValid)
    }

    @Test func aDamagedStoredModelIsRestoredFromTheIdentityCopy() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithOneDepartment(in: directory)
        try execute(url, "UPDATE strata_meta SET value = replace(value, '\"Department\"', '\"Departmenu\"') WHERE key = 'model'")
        #expect(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel) }?.code == .corruptDocument)
        let recovery = try DocumentRecovery.recover(url)
        #expect(recovery.repairs.contains { $0.contains("identity copy") }, "\(recovery.repairs)")
        #expect(try DocumentVerifier.verify(url).isValid)
        let stack = try DocumentStack.open(url)
        #expect(try stack.context.count(for: FetchRequest(entityName: "Department")) == 1)
        try stack.store.close()
    }

    @Test func anOlderDocumentWithoutAChecksumOpensAndGetsOneWithItsNextWrite() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithOneDepartment(in: directory)
        try execute(url, "DELETE FROM strata_meta WHERE key IN ('identityChecksum', 'identityCopy')")
        let report = try DocumentVerifier.verify(url)
        #expect(report.isValid, "\(report.problems)")
        #expect(report.notes.contains { $0.contains("no identity checksum (older document)") })

        let readOnly = try DocumentStack.open(url, configuration: manualCompaction())
        try readOnly.store.close()
        #expect(try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'identityChecksum'").isEmpty, "a read wrote the checksum")

        let stack = try DocumentStack.open(url, configuration: manualCompaction())
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue("Sales", forKey: "name")
        try stack.context.save()
        try stack.store.close()
        #expect(try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'identityChecksum'").count == 1)
        let after = try DocumentVerifier.verify(url)
        #expect(after.isValid && after.notes.isEmpty, "\(after.problems) \(after.notes)")
    }

    /// Version 3 and 4 bodies carry an author and a context name before their group count
    /// (docs/FORMAT.md §15.1): the check reads past them instead of calling the document
    /// damaged.
    @Test func checksIntegrityOnOpenReadsSegmentsWithAnAuthorAndTextEdits() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, model: textNoteModel, configuration: manualCompaction())
        stack.context.transactionAuthor = "Ada"
        stack.context.name = "Editor"
        let note = try stack.context.insertObject(forEntityName: "Note")
        try stack.context.save()
        try note.replaceCharacters(in: 0..<0, with: "hi", forKey: "title")
        try stack.context.save()
        try stack.store.close()
        var checking = manualCompaction()
        checking.checksIntegrityOnOpen = true
        let reopened = try DocumentStore(openingAt: url, model: textNoteModel, configuration: checking)
        try reopened.close()
    }

    @Test func checksIntegrityOnOpenRefusesDamagedPages() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        for index in 0..<400 {
            let department = try stack.context.insertObject(forEntityName: "Department")
            try department.setValue(.string("Department \(index) " + String(repeating: "x", count: 40)), forKey: "name")
        }
        try stack.context.save()
        _ = try stack.store.compact()
        try stack.store.close()
        // Break the index of department names: its root page's type byte.
        guard case .integer(let root)? = try sqlRows(url, "SELECT rootpage FROM sqlite_schema WHERE name = 'Department_name_index'").first?.first else {
            Issue.record("no name index")
            return
        }
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: UInt64(root - 1) * 4096)
        try handle.write(contentsOf: Data([0x55]))
        try handle.close()

        var checking = manualCompaction()
        checking.checksIntegrityOnOpen = true
        let error = try #require(strataError { _ = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: checking) })
        #expect(error.code == .corruptDocument)
        #expect(error.message.contains("damaged Strata document") && error.message.contains("strata-log verify"), "\(error.message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["doc.strata"])
        let recovery = try DocumentRecovery.recover(url)
        #expect(recovery.repairs.contains { $0.contains("rebuilt the snapshot tables from the complete log") }, "\(recovery.repairs)")
        _ = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: checking)
    }

    /// A single-byte repair tries only the bytes valid values of the field are made of
    /// (`DocumentIdentity.repairAlphabet`): every byte of a real document's short identity
    /// fields is among them, and a byte of each field damaged to one outside every alphabet
    /// is still repaired (found by the `document` fuzz target: trying every printable byte
    /// made one verify take seconds).
    @Test func aDamagedByteOfEachShortIdentityFieldIsRepairedFromTheFieldsAlphabet() throws {
        typealias Identity = Strata.DocumentIdentity  // the suite DocumentIdentity hides it
        let directory = try TemporaryDirectory()
        let url = try documentWithOneDepartment(in: directory)
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
        var values: [String: SQLiteValue] = [:]
        for row in try connection.prepare("SELECT key, value FROM strata_meta").rows() where row.count == 2 {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        connection.close()
        let expected = Identity.checksum(values)
        #expect(values[Identity.key] == .text(expected))
        for field in Identity.fields where field != "model" {
            let original = Identity.text(values[field])
            #expect(original.utf8.allSatisfy(Identity.repairAlphabet(field).contains), "\(field): \(original)")
            var bytes = Array(original.utf8)
            bytes[bytes.count / 2] = 0x7F
            var damaged = values
            damaged[field] = .text(String(decoding: bytes, as: UTF8.self))
            let repair = Identity.singleByteRepair(damaged, expected: expected)
            #expect(repair?.field == field && repair?.text == original, "\(field): \(String(describing: repair))")
        }
    }

    @Test func aMissingFileIsReportedMissingAndNothingElseIs() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("missing.strata")
        let error = try #require(strataError { _ = try DocumentStore(openingAt: missing, model: sharedExampleModel) })
        #expect(error.code == .io && error.message.contains("There is no document"))
        // A path through a file (ENOTDIR) is missing too; a directory is not a document.
        let url = try documentWithOneDepartment(in: directory)
        let through = url.appendingPathComponent("inner.strata")
        #expect(strataError { _ = try DocumentStore(openingAt: through, model: sharedExampleModel) }?.message.contains("There is no document") == true)
        let folder = strataError { _ = try DocumentStore(openingAt: directory.url, model: sharedExampleModel) }
        #expect(folder?.message.contains("directory") == true, "\(folder?.message ?? "")")
    }
}
