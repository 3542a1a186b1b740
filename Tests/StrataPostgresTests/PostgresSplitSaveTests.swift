import Foundation
import Strata
@testable import StrataPostgres
import StrataTestSupport
import Testing

/// A save larger than one segment may be, through a PostgreSQL-shared document (issue 32,
/// item 10): sent as several segments in its one server transaction, taken in whole by
/// another store, and undone as one group. The limit is lowered to 64 KiB here.
@Suite("PostgreSQL document: a save larger than a segment")
struct PostgresSplitSaveTests {
    @Test func aSaveLargerThanASegmentReachesAnotherStoreWholeAndUndoesAsOne() throws {
        let name = uniqueDocumentName("split")
        let limit = 64 << 10
        let one = try PostgresStack(name, listens: false, maxSegmentSize: limit)
        defer { one.close() }
        let padding = String(repeating: "x", count: 200)
        for index in 0..<1_500 {
            _ = try department("\(index)-\(padding)", one.context)
        }
        one.context.undoManager?.setActionName("Import")
        try one.context.save()

        let two = try PostgresStack(name, create: false, listens: false, maxSegmentSize: limit)
        defer { two.close() }
        #expect(try two.context.count(for: FetchRequest(entityName: "Department")) == 1_500)
        let groups = try two.store.replica.groupRecords()
        #expect(Set(groups.map(\.sequence)).count >= 3, "a 300 KB save under a 64 KiB limit is several segments")
        #expect(Set(groups.map(\.info.id)).count == 1, "one group, in every segment of the save")

        try one.context.undoManager?.undo()
        try one.context.save()
        _ = try two.store.catchUp()
        #expect(try two.newContext().count(for: FetchRequest(entityName: "Department")) == 0)
    }
}
