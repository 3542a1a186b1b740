import Foundation
import Testing
@testable import Strata

/// A closed document of `count` departments (their names indexed), compacted so that the
/// snapshot table and its index hold them.
private func departments(_ count: Int, in directory: TemporaryDirectory) throws -> URL {
    let url = directory.file()
    let stack = try DocumentStack.create(url, configuration: manualCompaction())
    for index in 0..<count {
        let department = try stack.context.insertObject(forEntityName: "Department")
        try department.setValue(.string("Department \((index * 7_919) % count)"), forKey: "name")
    }
    try stack.context.save()
    _ = try stack.store.compact()
    try stack.store.close()
    return url
}

/// Runs `statements` on the file, each on a connection of its own (a changed schema entry
/// takes effect on the next connection), the last one checkpointed into the file.
private func tamper(_ url: URL, _ statements: [String]) throws {
    for statement in statements {
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite], busyTimeout: 1)
        defer { connection.close() }
        try connection.execute("PRAGMA writable_schema=ON")
        try connection.execute(statement)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

private func sqlite(_ url: URL, _ pragma: String) throws -> [String] {
    try sqlRows(url, pragma).compactMap { row -> String? in if case .text(let text)? = row.first { text } else { nil } }
}

private func openToWrite(_ url: URL) throws {
    var checking = manualCompaction()
    checking.checksIntegrityOnOpen = true
    let store = try DocumentStore(openingAt: url, model: sharedExampleModel, configuration: checking)
    try store.close()
}

/// The write check's comparison of indexes with their tables (`DocumentIndexCheck`): it
/// finds what SQLite's `integrity_check` finds and `quick_check` does not, reading each
/// index in its own order (docs/RELIABILITY.md, "What a write checks").
@Suite struct DocumentIndexCheckTests {
    private static let partialName = "CREATE INDEX \"Department_name_index\" ON \"Department\" (\"name\") WHERE 0"
    private static let wholeName = "CREATE INDEX \"Department_name_index\" ON \"Department\" (\"name\")"

    @Test func aSoundDocumentPassesAndSQLiteAgrees() throws {
        let directory = try TemporaryDirectory()
        let url = try departments(2_000, in: directory)
        #expect(try sqlite(url, "PRAGMA integrity_check") == ["ok"])
        try openToWrite(url)
        let connection = try SQLiteConnection(path: url.path, flags: [.readOnly])
        defer { connection.close() }
        #expect(try DocumentIndexCheck.problem(connection) == nil)
    }

    @Test func anIndexMissingRowsIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try departments(500, in: directory)
        // While the entry says the index holds no row, two rows go in without entries.
        try tamper(url, [
            "UPDATE sqlite_schema SET sql = '\(Self.partialName.replacingOccurrences(of: "'", with: "''"))' WHERE name = 'Department_name_index'",
            "INSERT INTO \"Department\" (\"_pk\", \"name\") VALUES (100001, 'Late'), (100002, 'Later')",
            "UPDATE sqlite_schema SET sql = '\(Self.wholeName)' WHERE name = 'Department_name_index'",
        ])
        #expect(try sqlite(url, "PRAGMA quick_check") == ["ok"])
        #expect(try sqlite(url, "PRAGMA integrity_check") != ["ok"])
        let error = try #require(strataError { try openToWrite(url) })
        #expect(error.code == .corruptDocument)
        #expect(error.message.contains("Department_name_index holds 500 entries for the 502 rows of Department"), "\(error.message)")
        #expect(error.message.contains("strata-log recover"), "\(error.message)")
    }

    @Test func anIndexHoldingAnOldValueIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try departments(500, in: directory)
        // A row changed while its entry was not kept: as many entries as rows, one wrong.
        try tamper(url, [
            "UPDATE sqlite_schema SET sql = '\(Self.partialName)' WHERE name = 'Department_name_index'",
            "UPDATE \"Department\" SET \"name\" = 'Renamed' WHERE \"_pk\" = (SELECT min(\"_pk\") FROM \"Department\")",
            "UPDATE sqlite_schema SET sql = '\(Self.wholeName)' WHERE name = 'Department_name_index'",
        ])
        #expect(try sqlite(url, "PRAGMA quick_check") == ["ok"])
        #expect(try sqlite(url, "PRAGMA integrity_check") != ["ok"])
        let error = try #require(strataError { try openToWrite(url) })
        #expect(error.code == .corruptDocument)
        #expect(error.message.contains("Department_name_index does not hold the values of the rows of Department"), "\(error.message)")
    }

    @Test func aUniqueIndexHoldingAKeyTwiceIsFound() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create])
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b REAL)")
        try connection.execute("CREATE UNIQUE INDEX t_a ON t (a, b DESC)")
        try connection.execute("INSERT INTO t (a, b) VALUES ('x', 1.0), ('y', 2.5), (NULL, 3), (NULL, 3)")
        #expect(try DocumentIndexCheck.problem(connection) == nil, "equal NULL keys are not a duplicate, and 1.0 is one value stored either way")
        connection.close()
        try tamper(url, [
            "UPDATE sqlite_schema SET sql = 'CREATE INDEX t_a ON t (a, b DESC)' WHERE name = 't_a'",
            "INSERT INTO t (a, b) VALUES ('y', 2.5)",
            "UPDATE sqlite_schema SET sql = 'CREATE UNIQUE INDEX t_a ON t (a, b DESC)' WHERE name = 't_a'",
        ])
        #expect(try sqlite(url, "PRAGMA integrity_check") != ["ok"])
        let reopened = try SQLiteConnection(path: url.path, flags: [.readOnly])
        defer { reopened.close() }
        #expect(try DocumentIndexCheck.problem(reopened) == "its unique index t_a holds one key twice")
    }

    @Test func anIndexWhoseEntriesAreOutOfItsOrderIsFound() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create])
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER)")
        try connection.execute("CREATE INDEX t_ab ON t (a, b DESC)")
        try connection.execute("INSERT INTO t (a, b) VALUES ('x', 1), ('x', 2), ('y', 1), (NULL, 5), ('x', 2)")
        #expect(try DocumentIndexCheck.problem(connection) == nil)
        connection.close()
        // The entries stay as they were written, sorted by b descending; the entry now
        // says ascending, so searches look in the wrong places.
        try tamper(url, ["UPDATE sqlite_schema SET sql = 'CREATE INDEX t_ab ON t (a, b ASC)' WHERE name = 't_ab'"])
        #expect(try sqlite(url, "PRAGMA quick_check") == ["ok"])
        #expect(try sqlite(url, "PRAGMA integrity_check") != ["ok"])
        let reopened = try SQLiteConnection(path: url.path, flags: [.readOnly])
        defer { reopened.close() }
        #expect(try DocumentIndexCheck.problem(reopened) == "the index t_ab holds entries out of order")
    }

    @Test func anIndexMixingLargeIntegersWithRealsIsInOrder() throws {
        // 2⁵³ + 1 as an integer sorts after 2⁵³ as a real, which a comparison through
        // Double takes for equal; the rowids then decrease, and a sound index looked out
        // of order.
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create])
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a)")
        try connection.execute("CREATE INDEX t_a ON t (a)")
        try connection.execute("INSERT INTO t (id, a) VALUES (1, 9007199254740993), (2, 9007199254740992.0), (3, 9007199254740992.5e0), (4, -9007199254740993), (5, -9007199254740992.0)")
        #expect(try sqlite(url, "PRAGMA integrity_check") == ["ok"])
        #expect(try DocumentIndexCheck.problem(connection) == nil)
    }

    @Test func anIndexOfAnotherKindHasItsTableCheckedBySQLite() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite, .create])
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)")
        try connection.execute("CREATE INDEX t_lower ON t (lower(a))")
        try connection.execute("INSERT INTO t (a) VALUES ('X'), ('Y')")
        connection.close()
        try tamper(url, [
            "UPDATE sqlite_schema SET sql = 'CREATE INDEX t_lower ON t (upper(a))' WHERE name = 't_lower'",
        ])
        let reopened = try SQLiteConnection(path: url.path, flags: [.readOnly])
        defer { reopened.close() }
        let problem = try #require(try DocumentIndexCheck.problem(reopened))
        #expect(problem.contains("t_lower"), "\(problem)")
    }
}
