import Foundation
import Strata
import Testing

/// `strata-log verify` on a log in which two segments insert one record — what two writers
/// given the same key used to write (docs/RELIABILITY.md, "Writers never collide").
@Suite struct DuplicateInsertVerify {
    @Test func verifyFailsAndNamesBothSegmentsOfAForgedDuplicateInsert() throws {
        let sandbox = try TemporaryDirectory()
        let document = try sandbox.employees()
        _ = try sandbox.insert(document, "Department", "name=First")
        let url = URL(fileURLWithPath: document)

        // The forged segment 2 inserts Department/p1 again, under another name.
        let store = try DocumentStore(openingAt: url)
        let department = try store.model.entity(named: "Department")
        let id = try #require(try store.objectIDs(for: department, includingSubentities: false).first)
        var values = try #require(try store.values(for: id))
        values[try #require(department.slot(forKey: "name"))] = .string("Second")
        let forged = Segment(sequence: 2, timestamp: Date(), groups: [
            SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "Forged", operations: [.insert(id, values: values)]),
        ])
        let body = try SegmentCodec.compressedBody(forged, model: store.model)
        try store.close()
        let connection = try SQLiteConnection(path: document, flags: [.readWrite])
        let rawSize = try SegmentCodec.rawBody(body, sequenceHint: 2, maxContentSize: 1 << 20).count
        try connection.prepare("INSERT INTO strata_segment (seq, time, groups, operations, raw_size, body) VALUES (2, 0, 1, 1, ?, ?)")
            .run([.integer(Int64(rawSize)), .blob(body)])
        try connection.prepare("INSERT INTO strata_group (seq, id, kind, reverts, action) VALUES (2, 2, 0, NULL, 'Forged')").run()
        connection.close()

        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status != 0)
        #expect(verify.stdout.contains("Segments 1 and 2 both insert") || verify.stderr.contains("Segments 1 and 2 both insert"),
                "stdout: \(verify.stdout)\nstderr: \(verify.stderr)")
        // Writing to it is refused too: nothing is saved on top of a log that contradicts itself.
        let insert = try CLI.strata("insert", document, "Department", "name=Third")
        #expect(insert.status != 0)
    }
}
