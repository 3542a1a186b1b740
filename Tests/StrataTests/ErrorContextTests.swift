import Foundation
import Testing
@testable import Strata

/// `StrataError`'s typed accessors read what its context carries.
@Suite struct ErrorContext {
    @Test func aDamagedSegmentNamesItsSequenceAndOffsetThroughTypedAccessors() throws {
        let model = sharedExampleModel
        do {
            _ = try SegmentDecoder.decode([0x53, 0x54, 0x52, 0x41, 0xFF], model: model, storeTag: 1, sequenceHint: 7)
            Issue.record("decoding garbage succeeded")
        } catch let error as StrataError {
            #expect(error.code == .corruptSegment)
            #expect(error.segment == 7)
            #expect(error.byteOffset != nil)
            #expect(!error.isInCompressedFrame)
        }
    }

    @Test func sqliteErrorsCarryTheirResultCodeAndStatement() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.file("plain.sqlite").path)
        defer { connection.close() }
        do {
            try connection.execute("SELECT * FROM missing_table")
            Issue.record("a query of a missing table succeeded")
        } catch let error as StrataError {
            #expect(error.code == .sqlite)
            #expect(error.sqliteResultCode == 1)   // SQLITE_ERROR
            #expect(error.sql == "SELECT * FROM missing_table")
        }
    }

    @Test func validationAndModelErrorsNameTheirEntityAndKey() throws {
        let error = StrataError(.validation, "x", context: ["entity": "Employee", "key": "salary", "path": "/tmp/d.strata", "pid": "42"])
        #expect(error.entityName == "Employee")
        #expect(error.key == "salary")
        #expect(error.path == "/tmp/d.strata")
        #expect(error.lockHolderProcessID == 42)
        #expect(StrataError(.validation, "y").entityName == nil)
    }
}
