import Foundation
import Testing
@testable import Strata

/// `strata-log recover` keeps what is intact, and writes refuse damaged documents (issue 32,
/// items 4 and 5; docs/RELIABILITY.md, "Damaged documents"): the red team's reproductions.
@Suite("Recover keeps what is intact", .serialized)
struct RecoverKeepsIntactTests {
    /// A document keeping its whole history: 12 segments, compacted through segment 9
    /// with every segment kept, then 3 saves not yet compacted.
    private func historyDocument(_ sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees("history.strata")
        for index in 1...4 { _ = try sandbox.insert(document, "Department", "name=Dept\(index)") }
        for index in 1...4 {
            _ = try sandbox.insert(document, "Employee", "firstName=E\(index)", "lastName=L\(index)", "department=@Department/p\(index)")
        }
        #expect(try CLI.strata("update", document, "Employee/p1", "salary=99").status == 0)
        #expect(try CLI.strataLog("compact", document).status == 0)
        for index in 5...7 { _ = try sandbox.insert(document, "Department", "name=Late\(index)") }
        #expect(try CLI.strataLog("verify", document).status == 0)
        return document
    }

    /// Expects the recovered document to verify and hold every record and segment it held
    /// before the damage.
    private func expectMendedExactly(_ document: String, like original: CampaignDocument, _ recovered: CommandResult,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)", sourceLocation: sourceLocation)
        #expect(!recovered.stdout.contains("dropped segment"), "\(recovered.stdout)", sourceLocation: sourceLocation)
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)", sourceLocation: sourceLocation)
        #expect(try CampaignDocument.records(document) == original.records, sourceLocation: sourceLocation)
        #expect(try CampaignDocument.segments(document).segments == original.segments, sourceLocation: sourceLocation)
    }

    private func flip(_ document: String, text: String, offset: Int, to byte: UInt8) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: document))
        let found = try #require(bytes.range(of: Data(text.utf8)), "'\(text)' is not in the file")
        bytes[found.lowerBound + offset] = byte
        try bytes.write(to: URL(fileURLWithPath: document))
    }

    @Test("a damaged schema entry of strata_segment (its time column renamed): every segment and record kept")
    func damagedSegmentSchemaEntry() throws {
        let sandbox = try TemporaryDirectory()
        let document = try historyDocument(sandbox)
        let original = try CampaignDocument(name: "history", path: document)
        // The reproduction: "time" → "tiee" in sqlite_schema; `strata_segment.time` no longer reads.
        try flip(document, text: "PRIMARY KEY, time REAL", offset: 15, to: UInt8(ascii: "e"))
        expectFailure(try CLI.strata("insert", document, "Department", "name=X"), mentions: ["damaged", "strata-log recover"])
        let recovered = try CLI.strataLog("recover", document)
        #expect(recovered.stdout.contains("Dropped 0 segments"), "\(recovered.stdout)")
        try expectMendedExactly(document, like: original, recovered)
    }

    @Test("a damaged schema entry of strata_meta (its key column renamed): no raw SQLite error, mended")
    func damagedMetaSchemaEntry() throws {
        let sandbox = try TemporaryDirectory()
        let document = try historyDocument(sandbox)
        let original = try CampaignDocument(name: "history", path: document)
        try flip(document, text: "strata_meta (key TEXT", offset: 13, to: UInt8(ascii: "z"))
        let recovered = try CLI.strataLog("recover", document)
        #expect(!recovered.stderr.contains("SQLite error"), "\(recovered.stderr)")
        try expectMendedExactly(document, like: original, recovered)
    }

    @Test("two segment rows under one key (a damaged row key): both bodies kept by the sequence they say")
    func duplicatedRowKey() throws {
        let sandbox = try TemporaryDirectory()
        let document = try historyDocument(sandbox)
        let original = try CampaignDocument(name: "history", path: document)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: document))
        let body = try #require(original.bodyRanges[6])
        // The cell before the body: payload size, row key (6), record header (size, then
        // 0x00 for the key column and 0x07 for the time column), then the values.
        let cell = try #require((max(0, body.lowerBound - 40)..<body.lowerBound).last { index in
            bytes[index] == 6 && bytes[index + 2] == 0 && bytes[index + 3] == 7
        })
        bytes[cell] = 5
        try bytes.write(to: URL(fileURLWithPath: document))
        #expect(try CLI.strataLog("verify", document).status != 0)
        let recovered = try CLI.strataLog("recover", document)
        #expect(!recovered.stderr.contains("UNIQUE constraint"), "\(recovered.stderr)")
        try expectMendedExactly(document, like: original, recovered)
    }

    @Test("a segment row missing in the middle of the compacted history: the recovered document verifies and names the loss")
    func missingSegmentRow() throws {
        let sandbox = try TemporaryDirectory()
        let document = try historyDocument(sandbox)
        let original = try CampaignDocument(name: "history", path: document)
        let connection = try SQLiteConnection(path: document, flags: [.readWrite], busyTimeout: 1)
        try connection.execute("DELETE FROM strata_segment WHERE seq = 4; DELETE FROM strata_group WHERE seq = 4")
        connection.close()
        let recovered = try CLI.strataLog("recover", document)
        #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)")
        #expect(recovered.stdout.contains("dropped segment 4: damaged: its row is missing"), "\(recovered.stdout)")
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "not contiguous? \(verified.stdout)")
        // The records are all in the snapshot; the history from segment 5 on is kept.
        #expect(try CampaignDocument.records(document) == original.records)
        let kept = try CampaignDocument.segments(document).segments
        #expect(kept.keys.sorted() == Array(5...12))
        for (sequence, body) in kept { #expect(original.segments[sequence] == body) }
    }

    @Test("a document written by a newer Strata (format 3, correct identity checksum) is refused by recover and not rewritten")
    func newerFormatIsRefused() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        let connection = try SQLiteConnection(path: document, flags: [.readWrite], busyTimeout: 1)
        var values: [String: SQLiteValue] = [:]
        for row in try connection.prepare("SELECT key, value FROM strata_meta").rows() {
            if case .text(let key) = row[0] { values[key] = row[1] }
        }
        values["formatVersion"] = .integer(Int64(DocumentStore.formatVersion + 1))
        for (key, value) in [("formatVersion", values["formatVersion"]!), (DocumentIdentity.key, .text(DocumentIdentity.checksum(values))),
                             (DocumentIdentity.copyKey, .text(DocumentIdentity.copy(values)))] {
            try DocumentFile.writeMeta(connection, key: key, value)
        }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: document))
        let refusal = "written by a newer Strata (document format \(DocumentStore.formatVersion + 1)); this one reads up to format \(DocumentStore.formatVersion)"
        expectFailure(try CLI.strataLog("recover", document), tool: "strata-log", mentions: [refusal])
        expectFailure(try CLI.strataLog("verify", document), tool: "strata-log", mentions: [refusal])
        expectFailure(try CLI.strata("insert", document, "Department", "name=X"), mentions: [refusal])
        #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path).filter { $0.contains(".bak") }.isEmpty)
    }

    @Test("writes refuse a damaged compacted segment, a damaged index, a renamed snapshot column and missing group rows, and change nothing")
    func writesRefuseDamage() throws {
        let sandbox = try TemporaryDirectory()
        let base = try historyDocument(sandbox)
        let original = try CampaignDocument(name: "history", path: base)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: base))
        let document = sandbox.path("d.strata")
        func expectWriteRefused(_ label: String, mentions fragment: String, damage: () throws -> Void) throws {
            try pristine.write(to: URL(fileURLWithPath: document))
            try damage()
            let damaged = try Data(contentsOf: URL(fileURLWithPath: document))
            #expect(try CLI.strataLog("verify", document).status != 0, "\(label): verify passes")
            let write = try CLI.strata("insert", document, "Department", "name=X")
            expectFailure(write, mentions: ["damaged", "strata-log recover", fragment])
            #expect(try Data(contentsOf: URL(fileURLWithPath: document)) == damaged, "\(label): the refused write changed the file")
            #expect(try CLI.strataLog("recover", document).status == 0, "\(label)")
            #expect(try CLI.strataLog("verify", document).status == 0, "\(label)")
            #expect(try CLI.strata("insert", document, "Department", "name=X").status == 0, "\(label): the recovered file refuses writes")
        }
        // An LZ4 checksum error in a segment the snapshot already holds.
        try expectWriteRefused("compacted segment", mentions: "segment 2 fails its checksum") {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: document))
            let body = try #require(original.bodyRanges[2])
            bytes[body.upperBound - 6] ^= 0x20
            try bytes.write(to: URL(fileURLWithPath: document))
        }
        // Rows missing from an index: the index's definition no longer matches its entries.
        try expectWriteRefused("index", mentions: "integrity check") {
            let connection = try SQLiteConnection(path: document, flags: [.readWrite], busyTimeout: 1)
            defer { connection.close() }
            try connection.execute("CREATE INDEX campaign_name ON \"Department\" (\"name\")")
            try connection.execute("PRAGMA writable_schema=ON")
            try connection.execute("UPDATE sqlite_schema SET sql = 'CREATE INDEX campaign_name ON \"Department\" (\"budget\")' WHERE name = 'campaign_name'")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // A snapshot table's schema entry with a column renamed: pages and indexes intact.
        try expectWriteRefused("snapshot column", mentions: "bUdget; document format") {
            let connection = try SQLiteConnection(path: document, flags: [.readWrite], busyTimeout: 1)
            defer { connection.close() }
            try connection.execute("PRAGMA writable_schema=ON")
            try connection.execute("UPDATE sqlite_schema SET sql = replace(sql, '\"budget\"', '\"bUdget\"') WHERE name = 'Department'")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // A segment's group rows gone.
        try expectWriteRefused("group rows", mentions: "group rows") {
            let connection = try SQLiteConnection(path: document, flags: [.readWrite], busyTimeout: 1)
            defer { connection.close() }
            try connection.execute("DELETE FROM strata_group WHERE seq = 3")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
