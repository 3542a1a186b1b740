import Foundation
import Testing
@testable import Strata

// An open reads the meta, the snapshot and the log. When another process compacts between
// those reads, the segments it folded must not be applied again over the snapshot that now
// holds them: that refused the document as "inserted again with no delete between" (first
// seen as a rare ManyWriters failure under AddressSanitizer's slower timing).
@Suite("Opening beside a compaction")
struct OpeningBesideCompactionTests {
    @Test func aCompactionCommittedWhileTheDocumentOpensIsNotAppliedTwice() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let writer = try DocumentStack.create(url, configuration: manualCompaction(retention: .last(2)))
        for index in 1...4 {
            _ = try insertNamed("Project", "P\(index)", in: writer.context)
            try writer.context.save()
        }
        #expect(try writer.store.logPosition.compactedThrough == 0)
        let compactor = writer.store
        DocumentStore.openHooks.withLock { hooks in
            hooks[url.path] = { _ = try? compactor.compact() }
        }
        defer { DocumentStore.openHooks.withLock { $0[url.path] = nil } }

        let reader = try DocumentStack.open(url, configuration: manualCompaction())
        #expect(try writer.store.logPosition.compactedThrough == 4, "the hook compacted while the reader opened")
        #expect(try writer.store.segmentRecords().map(\.sequence) == [3, 4])
        let names = try reader.context.fetch(FetchRequest(entityName: "Project")).map { try $0.value(forKey: "name") }
        #expect(Set(names) == Set((1...4).map { PropertyValue.string("P\($0)") }))
        #expect(firstDifference(try readEverything(reader.store), try readEverything(writer.store)) == nil)
        // The reader catches up past the compaction and writes on top of it.
        _ = try insertNamed("Project", "P5", in: reader.context)
        try reader.context.save()
        try writer.store.refreshFromLog()
        #expect(firstDifference(try readEverything(reader.store), try readEverything(writer.store)) == nil)
        try reader.store.close()
        try writer.store.close()
    }
}
