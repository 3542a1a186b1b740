import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Whether SQLite's `quick_check` finds the file damaged (what CLI writes refuse).
private func quickCheckFails(_ path: String) -> Bool {
    guard let connection = try? SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: 1) else { return true }
    defer { connection.close() }
    guard let rows = try? connection.prepare("PRAGMA quick_check").rows() else { return true }
    return rows.count != 1 || rows.first?.first != .text("ok")
}

/// Damaged documents (docs/RELIABILITY.md, "Damaged documents"): every single-byte flip
/// leaves a document that verifies, or one `strata-log recover` repairs; writes to a
/// document SQLite finds damaged are refused.
@Suite("Damaged documents", .serialized)
struct DamagedDocumentTests {
    /// A document with its whole history: inserts, an update, a delete, a compaction
    /// (so the snapshot tables hold rows), then saves after it.
    private func historyDocument(_ sandbox: TemporaryDirectory) throws -> String {
        let document = try sandbox.employees("base.strata")
        for index in 1...6 { _ = try sandbox.insert(document, "Department", "name=Dept\(index)") }
        for index in 1...4 {
            _ = try sandbox.insert(document, "Employee", "firstName=E\(index)", "lastName=L\(index)", "salary=\(index * 1000)",
                                   "department=@Department/p\(index)")
        }
        #expect(try CLI.strata("update", document, "Employee/p1", "salary=99").status == 0)
        #expect(try CLI.strata("delete", document, "Department/p6").status == 0)
        #expect(try CLI.strataLog("compact", document).status == 0)
        _ = try sandbox.insert(document, "Department", "name=Late")
        _ = try sandbox.insert(document, "Employee", "firstName=Last", "lastName=Z", "department=@Department/p5")
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "\(verified.stdout)")
        return document
    }

    @Test("every single-byte flip: intact, or recover restores a document verify accepts; damaged pages refuse writes")
    func seededFlips() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = testSeed("DamagedDocumentTests.seededFlips")
        let flips = environment["STRATA_FLIPS"].flatMap { Int($0) } ?? 200
        print("DamagedDocumentTests.seededFlips: STRATA_FLIPS=\(flips)")
        let sandbox = try TemporaryDirectory()
        let base = try Data(contentsOf: URL(fileURLWithPath: try historyDocument(sandbox)))
        let document = sandbox.path("d.strata")
        var generator = SeededGenerator(seed: seed)
        var counts: [String: Int] = [:]
        for flip in 0..<flips {
            let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.url.path)
            for name in names where name.hasPrefix("d.strata") { try FileManager.default.removeItem(atPath: sandbox.path(name)) }
            var bytes = base
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[position] ^= UInt8.random(in: 1...255, using: &generator)
            try bytes.write(to: URL(fileURLWithPath: document))
            let where_ = "flip \(flip) at byte \(position) (STRATA_SEED=\(seed))"

            let verified = try CLI.strataLog("verify", document)
            if verified.status == 0 {
                counts["intact", default: 0] += 1
                continue
            }
            #expect(!verified.stderr.contains("not a Strata document"), "\(where_): \(verified.stderr)")
            let refuses = quickCheckFails(document)
            let write = try CLI.strata("insert", document, "Department", "name=Written")
            counts["verify failed", default: 0] += 1
            if refuses {
                counts["write refused: quick check", default: 0] += 1
                #expect(write.status != 0, "\(where_): a write to a damaged document succeeded")
                #expect(write.stderr.contains("damaged") && write.stderr.contains("strata-log recover"), "\(where_): \(write.stderr)")
            } else if write.status == 0 {
                counts["written: damage below SQLite's quick check", default: 0] += 1
            } else {
                counts["write refused: other damage found at open", default: 0] += 1
            }
            let recovered = try CLI.strataLog("recover", document)
            #expect(recovered.status == 0, "\(where_): recover failed: \(recovered.stdout)\(recovered.stderr)")
            let after = try CLI.strataLog("verify", document)
            #expect(after.status == 0, "\(where_): not repaired:\n\(verified.stdout)\(verified.stderr)\n--- recover:\n\(recovered.stdout)\(recovered.stderr)\n--- verify:\n\(after.stdout)\(after.stderr)")
            counts[after.status == 0 ? "recovered" : "NOT recovered", default: 0] += 1
            if after.status != 0 { break }
        }
        print("DamagedDocumentTests.seededFlips: \(counts.sorted { $0.key < $1.key })")
    }

    @Test("a flipped byte in the store identifier is caught by open and verify, and recover restores it")
    func identifierFlip() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        let uri = try sandbox.insert(document, "Department", "name=Research")
        let original = try #require(try DocumentStore.storedIdentifier(document))
        var bytes = try sandbox.bytes("staff.strata")
        let needle = Data(original.utf8)
        var occurrences: [Int] = []
        var start = bytes.startIndex
        while let found = bytes.range(of: needle, in: start..<bytes.endIndex) {
            occurrences.append(found.lowerBound)
            start = found.upperBound
        }
        #expect(!occurrences.isEmpty)
        for occurrence in occurrences {
            var flipped = bytes
            flipped[occurrence + 3] = flipped[occurrence + 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            try flipped.write(to: URL(fileURLWithPath: document))
            expectFailure(try CLI.strata("get", document, uri), mentions: ["damaged", "strata-log recover"])
            let verified = try CLI.strataLog("verify", document)
            #expect(verified.status != 0 && !verified.stdout.contains("verified"), "\(verified.stdout)")
            let recovered = try CLI.strataLog("recover", document)
            #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)")
            #expect(recovered.stdout.contains("restored") || recovered.stdout.contains("rebuilt"), "\(recovered.stdout)")
            #expect(try CLI.strataLog("verify", document).status == 0)
            #expect(try CLI.strata("get", document, uri).status == 0, "the URI changed")
            bytes = try sandbox.bytes("staff.strata")
        }
    }

    @Test("files that are not documents, SQLite files without Strata metadata and damaged documents get different errors")
    func kindsOfFiles() throws {
        let sandbox = try TemporaryDirectory()
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("notes.txt")))
        expectFailure(try CLI.strataLog("recover", sandbox.path("notes.txt")), tool: "strata-log", mentions: ["not a Strata document", "not an SQLite file"])
        let foreign = sandbox.path("foreign.db")
        let connection = try SQLiteConnection(path: foreign)
        try connection.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        connection.close()
        expectFailure(try CLI.strataLog("recover", foreign), tool: "strata-log", mentions: ["not a Strata document", "without Strata metadata"])
        // A damaged schema entry of the meta table: still recognised, and repaired.
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=Research")
        var bytes = try sandbox.bytes("staff.strata")
        let create = try #require(bytes.range(of: Data("CREATE TABLE strata_meta".utf8)))
        bytes[create.lowerBound + 15] ^= 0x01   // "strata_meta" → "stsata_meta"
        try bytes.write(to: URL(fileURLWithPath: document))
        expectFailure(try CLI.strata("info", document), mentions: ["damaged Strata document", "strata-log recover"])
        let recovered = try CLI.strataLog("recover", document)
        #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)")
        #expect(recovered.stdout.contains("rebuilt the snapshot tables from the complete log"), "\(recovered.stdout)")
        #expect(try CLI.strataLog("verify", document).status == 0)
        #expect(try CLI.strata("fetch", document, "Department", "--count").stdout == "1\n")
    }
}

extension DocumentStore {
    /// The store identifier of the document at `path`.
    fileprivate static func storedIdentifier(_ path: String) throws -> String? {
        let connection = try SQLiteConnection(path: path, flags: [.readWrite], busyTimeout: 1)
        defer { connection.close() }
        if case .text(let text)? = try connection.prepare("SELECT value FROM strata_meta WHERE key = 'storeIdentifier'").rows().first?.first {
            return text
        }
        return nil
    }
}
