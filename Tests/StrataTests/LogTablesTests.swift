import Foundation
import Testing
@testable import Strata

/// One reader of the log tables (`LogTables`): a malformed row is an error naming its
/// segment, for the store and for verification alike.
@Suite struct LogTablesTests {
    /// A closed document with three saves (segments 1–3, one group each).
    private func documentWithThreeSaves(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file()
        let stack = try DocumentStack.create(url, configuration: manualCompaction())
        for name in ["Research", "Sales", "Support"] {
            try stack.context.insertObject(forEntityName: "Department").setValue(.string(name), forKey: "name")
            try stack.context.save()
        }
        try stack.store.close()
        return url
    }

    private func execute(_ url: URL, _ sql: String) throws {
        let connection = try SQLiteConnection(path: url.path, flags: [.readWrite])
        defer { connection.close() }
        try connection.execute(sql)
    }

    @Test func aMalformedSegmentRowIsAnErrorNamingItForTheStoreAndAFindingForVerify() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSaves(in: directory)
        try execute(url, "UPDATE strata_segment SET raw_size = 'lots' WHERE seq = 2")

        let log = try DocumentLogFile(url)
        let error = try #require(strataError { _ = try log.segmentRecords() })
        #expect(error.code == .corruptSegment && error.context.segment == 2, "\(error)")
        #expect(error.message == "The log row of segment 2 is malformed.")
        #expect(try log.segmentRecords(in: 3...3).map(\.sequence) == [3])
        log.close()

        let report = try DocumentVerifier.verify(url)
        #expect(report.problems.contains("The log row of segment 2 is malformed."), "\(report.problems)")
        #expect(!report.isValid)
    }

    @Test func aMalformedGroupRowIsAnErrorNamingItsSegmentNotASkippedRow() throws {
        let directory = try TemporaryDirectory()
        let url = try documentWithThreeSaves(in: directory)
        let store = try DocumentStore(openingAt: url, model: sharedExampleModel)
        #expect(try store.groupRecords().map(\.sequence) == [1, 2, 3])
        try store.close()
        try execute(url, "UPDATE strata_group SET kind = 'user' WHERE seq = 3")

        let reopened = try DocumentStore(openingAt: url, model: sharedExampleModel)
        defer { try? reopened.close() }
        let error = try #require(strataError { _ = try reopened.groupRecords() })
        #expect(error.code == .corruptSegment && error.context.segment == 3, "\(error)")
        #expect(error.message.contains("group row of segment 3 is malformed"), "\(error.message)")
    }
}
