import Foundation
import Testing
@testable import Strata

/// Real SQLite in a fresh temporary directory per test.
final class SQLiteScratch {
    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    init() throws { temporary = try TemporaryDirectory() }
    var path: String { temporary.path("test.sqlite") }

    func open(_ flags: SQLiteConnection.OpenFlags = [.readWrite, .create], busyTimeout: TimeInterval = 5) throws
        -> SQLiteConnection
    {
        try SQLiteConnection(path: path, flags: flags, busyTimeout: busyTimeout)
    }
}

@Suite struct SQLiteConnections {
    let scratch: SQLiteScratch
    let connection: SQLiteConnection

    init() throws {
        scratch = try SQLiteScratch()
        connection = try scratch.open()
        try connection.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, payload BLOB)")
    }

    func count() throws -> Int64 {
        let statement = try connection.prepare("SELECT count(*) FROM item")
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    @Test func valuesOfEveryTypeBindAndReadBack() throws {
        let insert = try connection.prepare("INSERT INTO item(name, price, payload) VALUES (?, ?, ?)")
        try insert.bind("Zoë 🚀", at: 1)
        try insert.bind(2.5, at: 2)
        try insert.bind(bytes: [0, 1, 0xFF], at: 3)
        #expect(try insert.step() == .done)
        #expect(connection.lastInsertRowID == 1)
        #expect(connection.changes == 1)
        try insert.run([.null, .real(-0.5), .blob([])])
        try insert.run([.text(""), .integer(7), .null])
        try insert.reset()
        try insert.bind(Data([9, 8]), at: 3)
        try insert.bindNull(at: 1)
        try insert.bind(Int64.max, at: 2)
        _ = try insert.step()

        let rows = try connection.prepare("SELECT id, name, price, payload FROM item ORDER BY id").rows()
        #expect(rows == [
            [.integer(1), .text("Zoë 🚀"), .real(2.5), .blob([0, 1, 0xFF])],
            [.integer(2), .null, .real(-0.5), .blob([])],
            [.integer(3), .text(""), .real(7), .null],
            [.integer(4), .null, .real(Double(Int64.max)), .blob([9, 8])],
        ])
        let select = try connection.prepare("SELECT name, payload, price FROM item WHERE id = ?")
        try select.bind(1, at: 1)
        #expect(try select.step() == .row)
        #expect(select.columnCount == 3)
        #expect(select.columnName(at: 1) == "payload")
        #expect(select.string(at: 0) == "Zoë 🚀")
        #expect(select.bytes(at: 1) == [0, 1, 0xFF])
        #expect(select.data(at: 1) == Data([0, 1, 0xFF]))
        #expect(select.double(at: 2) == 2.5)
        #expect(!select.isNull(at: 0))
        #expect(try select.step() == .done)
    }

    @Test func aBlobWrittenIntoAZeroblobRowIsStoredWhole() throws {
        let insert = try connection.prepare("INSERT INTO item(id, name, payload) VALUES (?, ?, zeroblob(?))")
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try insert.run([.integer(1), .text("big"), .integer(Int64(big.count))])
        try connection.writeBlob(big, table: "item", column: "payload", row: 1)
        try insert.run([.integer(2), .text("empty"), .integer(0)])
        try connection.writeBlob([], table: "item", column: "payload", row: 2)
        let rows = try connection.prepare("SELECT id, name, payload FROM item ORDER BY id").rows()
        #expect(rows == [[.integer(1), .text("big"), .blob(big)], [.integer(2), .text("empty"), .blob([])]])
    }

    @Test func writingABlobThatDoesNotFitOrHasNoRowNamesTheRow() throws {
        try connection.prepare("INSERT INTO item(id, name, payload) VALUES (1, 'small', zeroblob(2))").run()
        for (bytes, row): ([UInt8], Int64) in [([1, 2, 3], 1), ([1], 9)] {
            do {
                try connection.writeBlob(bytes, table: "item", column: "payload", row: row)
                Issue.record("writing \(bytes.count) bytes into row \(row) succeeded")
            } catch let error as StrataError {
                #expect("\(error)".contains("item.payload of row \(row)"))
            }
        }
        // Nothing was written: the row keeps its zeros.
        #expect(try connection.prepare("SELECT payload FROM item WHERE id = 1").rows() == [[.blob([0, 0])]])
    }

    @Test func statementsAreCachedPerSQLTextAndHandedOutReset() throws {
        let sql = "SELECT name FROM item WHERE id = ?"
        try connection.execute("INSERT INTO item(name) VALUES ('a'), ('b')")
        let first = try connection.prepare(sql)
        try first.bind(1, at: 1)
        #expect(try first.step() == .row)
        let again = try connection.prepare(sql)
        #expect(first === again)
        #expect(connection.cachedStatementCount == 1)
        // Handed out reset with cleared bindings: id = NULL matches nothing.
        #expect(try again.step() == .done)
        _ = try connection.prepare("SELECT 1")
        #expect(connection.cachedStatementCount == 2)
        #expect(try connection.makeStatement(sql) !== first)
        #expect(connection.cachedStatementCount == 2)
    }

    @Test func aTransactionCommitsOnSuccessAndRollsBackOnThrow() throws {
        struct Boom: Error {}
        try connection.transaction(.immediate) {
            try connection.execute("INSERT INTO item(name) VALUES ('kept')")
        }
        #expect(try count() == 1)
        #expect(throws: Boom.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO item(name) VALUES ('lost')")
                #expect(try count() == 2)
                throw Boom()
            }
        }
        #expect(try count() == 1)
        #expect(connection.isAutocommit)
        let value = try connection.transaction(.exclusive) { 42 }
        #expect(value == 42)
    }

    @Test func aNestedTransactionIsRefusedAndSavepointsNest() throws {
        struct Boom: Error {}
        // Outcomes are collected with do/catch and checked after the transaction: several
        // #expect(throws:) closures inside one closure confuse the 6.3 macro expansion.
        var nestedError: (any Error)?
        var savepointError: (any Error)?
        try connection.transaction {
            do { try connection.transaction { } } catch { nestedError = error }
            try connection.execute("INSERT INTO item(name) VALUES ('outer')")
            do {
                try connection.savepoint {
                    try connection.execute("INSERT INTO item(name) VALUES ('inner')")
                    throw Boom()
                }
            } catch { savepointError = error }
            try connection.savepoint { try connection.execute("INSERT INTO item(name) VALUES ('inner 2')") }
        }
        #expect((nestedError as? StrataError)?.code == .invalidArgument)
        #expect(savepointError is Boom)
        let names = try connection.prepare("SELECT name FROM item ORDER BY id").rows()
        #expect(names == [[.text("outer")], [.text("inner 2")]])
    }

    @Test func theTraceHookReportsTheSQLRun() throws {
        var log: [String] = []
        connection.setTrace { log.append($0) }
        try connection.transaction(.immediate) {
            try connection.prepare("INSERT INTO item(name) VALUES (?)").run([.text("secret")])
        }
        #expect(log == ["BEGIN IMMEDIATE TRANSACTION", "INSERT INTO item(name) VALUES (?)", "COMMIT TRANSACTION"])
        connection.setTrace(nil)
        try connection.execute("SELECT 1")
        #expect(log.count == 3)
    }

    @Test func registeredFunctionsRunInSQLAndReportErrors() throws {
        try connection.registerFunction(name: "shout", argumentCount: 1, deterministic: true) { arguments in
            guard case .text(let text) = arguments[0] else { return .null }
            return .text(text.uppercased() + "!")
        }
        try connection.registerFunction(name: "describe_all", argumentCount: -1, deterministic: false) { arguments in
            .text(arguments.map(\.description).joined(separator: ","))
        }
        try connection.registerFunction(name: "fail", argumentCount: 0, deterministic: true) {
            _ in throw StrataError(.predicateEvaluation, "no such variable $X")
        }
        try connection.registerFunction(name: "blob_of", argumentCount: 1, deterministic: true) { arguments in
            guard case .integer(let count) = arguments[0] else { return .null }
            return .blob([UInt8](repeating: 7, count: Int(count)))
        }
        #expect(connection.registeredFunctionNames == ["shout", "describe_all", "fail", "blob_of"])
        #expect(try connection.prepare("SELECT shout('hi'), shout(NULL)").rows() == [[.text("HI!"), .null]])
        #expect(try connection.prepare("SELECT describe_all(1, 2.5, 'x', x'00', NULL)").rows()
                == [[.text("1,2.5,\"x\",<1 bytes>,NULL")]])
        #expect(try connection.prepare("SELECT blob_of(0), blob_of(2), typeof(blob_of(0))").rows()
                == [[.blob([]), .blob([7, 7]), .text("blob")]])
        #expect {
            try connection.prepare("SELECT fail()").rows()
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .sqlite && error?.message.contains("fail: no such variable $X") == true
                && error?.context.sql == "SELECT fail()"
        }
        // Replacing a function releases the old closure; closing releases the rest.
        try connection.registerFunction(name: "shout", argumentCount: 1, deterministic: true) { _ in .text("quiet") }
        #expect(try connection.prepare("SELECT shout('x')").rows() == [[.text("quiet")]])
    }

    @Test func errorsCarryTheSQLAndResultCodes() throws {
        #expect {
            try connection.execute("SELEKT 1")
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .sqlite && error?.context.sql == "SELEKT 1"
                && error?.context.sqliteResultCode == 1 && error?.message.contains("syntax error") == true
        }
        #expect {
            try connection.prepare("SELECT * FROM missing")
        } throws: { error in
            (error as? StrataError)?.message.contains("no such table: missing") == true
        }
        try connection.execute("CREATE TABLE unique_name(name TEXT UNIQUE)")
        let insert = try connection.prepare("INSERT INTO unique_name VALUES (?)")
        try insert.run([.text("a")])
        #expect {
            try insert.run([.text("a")])
        } throws: { error in
            let error = error as? StrataError
            // SQLITE_CONSTRAINT (19), extended SQLITE_CONSTRAINT_UNIQUE (2067).
            return error?.context.sqliteResultCode == 19 && error?.context.sqliteExtendedCode == 2067
                && error?.context.sql == "INSERT INTO unique_name VALUES (?)"
        }
        #expect(throws: StrataError.self) { try insert.bind(.integer(1), at: 5) }
    }

    @Test func aLockHeldByAnotherConnectionIsReportedAsDocumentBusy() throws {
        let other = try scratch.open(busyTimeout: 0.05)
        try connection.execute("BEGIN IMMEDIATE TRANSACTION")
        defer { try? connection.execute("ROLLBACK") }
        #expect {
            try other.transaction(.immediate) { try other.execute("INSERT INTO item(name) VALUES ('x')") }
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .documentBusy && error?.message.contains("is busy") == true
                && error?.context.sqliteResultCode == 5
        }
        #expect(other.isAutocommit)
    }

    @Test func closingFinalizesStatementsAndLaterUseThrows() throws {
        let statement = try connection.prepare("SELECT 1")
        try connection.registerFunction(name: "one", argumentCount: 0, deterministic: true) { _ in .integer(1) }
        connection.setTrace { _ in }
        connection.close()
        #expect(!connection.isOpen)
        #expect(connection.cachedStatementCount == 0)
        #expect(throws: StrataError.self) { try statement.step() }
        #expect(throws: StrataError.self) { try connection.execute("SELECT 1") }
        connection.close()
    }

    @Test func readOnlyConnectionsCannotWriteAndMissingFilesDoNotOpen() throws {
        let reader = try scratch.open([.readOnly])
        #expect(try reader.prepare("SELECT count(*) FROM item").rows() == [[.integer(0)]])
        #expect {
            try reader.execute("INSERT INTO item(name) VALUES ('x')")
        } throws: { error in
            (error as? StrataError)?.context.sqliteResultCode == 8   // SQLITE_READONLY
        }
        let missing = scratch.directory.appendingPathComponent("nope/none.sqlite").path
        #expect {
            try SQLiteConnection(path: missing, flags: [.readWrite])
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .sqlite && error?.context.path == missing
        }
    }
}
