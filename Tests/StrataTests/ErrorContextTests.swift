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
            #expect(error.context.layer == .segmentBody)
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
        let error = StrataError(.validation, "x", context: .init { $0.path = "/tmp/d.strata"; $0.entity = "Employee"; $0.key = "salary"; $0.processID = 42 })
        #expect(error.entityName == "Employee")
        #expect(error.key == "salary")
        #expect(error.path == "/tmp/d.strata")
        #expect(error.lockHolderProcessID == 42)
        #expect(StrataError(.validation, "y").entityName == nil)
    }

    @Test func aContextListsTheFieldsItHoldsUnderStableNames() {
        let context = StrataError.Context { $0.path = "/tmp/d.strata"; $0.kind = .busy; $0.segment = 3; $0.offset = 32; $0.layer = .lz4Frame; $0.rows = [2, 5]; $0.sqliteResultCode = 5; $0.cause = .busy; $0.processID = 42 }
        #expect(context.description == "path: /tmp/d.strata, kind: busy, segment: 3, offset: 32, layer: lz4, rows: 2,5, sqliteResultCode: 5, cause: busy, processID: 42")
        #expect(StrataError.Context().description.isEmpty)
        #expect(StrataError.Context { $0.key = "salary" }.with { $0.hasSuggestion = true }.description == "key: salary")
    }

    @Test func withAddsToAContextAndKeepsTheRest() {
        let base = StrataError.Context { $0.entity = "Employee"; $0.key = "salary" }
        let more = base.with { $0.segment = 7; $0.key = "wage" }
        #expect(more == StrataError.Context { $0.segment = 7; $0.entity = "Employee"; $0.key = "wage" })
        #expect(base.key == "salary")
    }

    @Test func kindsAndLayersKeepTheirRawNames() {
        // The raw values are a stable format (logs, scripts): renaming a case must not change them.
        #expect(StrataError.Context.Kind.checkpointIncomplete.rawValue == "checkpointIncomplete")
        #expect(StrataError.Context.Kind(rawValue: "notCommitted") == .notCommitted)
        #expect(StrataError.Context.Layer.lz4Frame.rawValue == "lz4")
        #expect(StrataError.Context.Layer.segmentBody.rawValue == "body")
        #expect(Set(StrataError.Context.Kind.allCases.map(\.rawValue)).count == StrataError.Context.Kind.allCases.count)
    }
}
