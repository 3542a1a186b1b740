import Foundation
import Testing
@testable import Strata

/// StoreFetchMerge on its own, as the document store will use it: base IDs from a store,
/// an overlay of rows, a predicate and sort keys from the rows.
@Suite struct FetchMergeTests {
    let entity = try! sharedExampleModel.entity(named: "Project")

    private func id(_ key: Int64) -> ManagedObjectID { ManagedObjectID(entity: entity, storeTag: 7, primaryKey: key) }

    /// Merges with "value > 0" as the predicate and the value as the only sort key.
    private func merge(
        base: [Int64: Int64], overlay: [Int64: Int64?], ascending: Bool = true, offset: Int = 0, limit: Int = 0
    ) throws -> [Int64] {
        let descriptor = FetchSortDescriptor("x", ascending: ascending)
        let baseIDs = base.filter { $0.value > 0 }
            .sorted { FetchSortDescriptor.compare((id($0.key), [.integer($0.value)]), (id($1.key), [.integer($1.value)]), by: [descriptor]) < 0 }
            .map { id($0.key) }
        var entries: [ManagedObjectID: StoreFetchMerge.Overlay<Int64>] = [:]
        for (key, value) in overlay { entries[id(key)] = value.map { .values($0) } ?? .deleted }
        return try StoreFetchMerge.merge(
            base: baseIDs, overlay: entries, sortDescriptors: [descriptor], offset: offset, limit: limit,
            matches: { _, value in value > 0 },
            sortKeys: { id, value in [.integer(value ?? base[id.primaryKey] ?? 0)] }
        ).map(\.primaryKey)
    }

    @Test func overlayRowsReplaceDeleteAndJoinBaseRows() throws {
        let base: [Int64: Int64] = [1: 10, 2: 20, 3: 30, 4: 40]
        // 2 deleted, 3 moved to 5, 4 no longer matches, 5 new at 25, 6 new but not matching.
        let merged = try merge(base: base, overlay: [2: nil, 3: 5, 4: -1, 5: 25, 6: 0])
        #expect(merged == [3, 1, 5])
        #expect(try merge(base: base, overlay: [2: nil, 3: 5, 4: -1, 5: 25, 6: 0], ascending: false) == [5, 1, 3])
    }

    @Test func tiesBetweenBaseAndOverlayRowsFollowIDOrder() throws {
        let merged = try merge(base: [1: 10, 3: 10], overlay: [2: 10, 4: 10, 0: 10])
        #expect(merged == [0, 1, 2, 3, 4])
    }

    @Test func theWindowAppliesToTheMergedList() throws {
        let base: [Int64: Int64] = [1: 10, 2: 20, 3: 30, 4: 40, 5: 50]
        let overlay: [Int64: Int64?] = [6: 15, 2: nil, 7: 45]
        let full = try merge(base: base, overlay: overlay)
        #expect(full == [1, 6, 3, 4, 7, 5])
        for offset in 0...7 {
            for limit in 0...7 {
                let expected = Array(full.dropFirst(offset).prefix(limit == 0 ? full.count : limit))
                #expect(try merge(base: base, overlay: overlay, offset: offset, limit: limit) == expected)
            }
        }
    }

    @Test func theStoreWindowLeavesRoomForDroppedOverlayRows() {
        #expect(StoreFetchMerge.storeWindow(offset: 10, limit: 5, overlayCount: 3) == (0, 18))
        #expect(StoreFetchMerge.storeWindow(offset: 10, limit: 0, overlayCount: 3) == (0, 0))
        #expect(StoreFetchMerge.storeWindow(offset: Int.max, limit: 5, overlayCount: 3) == (0, Int.max))
        #expect(StoreFetchMerge.window([1, 2, 3], offset: Int.max, limit: 2) == [])
        #expect(StoreFetchMerge.windowCount(total: 3, offset: -4, limit: 0) == 3)
    }

    @Test func baseSortKeysAreReadOnlyForBinarySearchProbes() throws {
        let base = (1...1000).map { id(Int64($0)) }
        var probes = 0
        let merged = try StoreFetchMerge.merge(
            base: base, overlay: [id(2000): StoreFetchMerge.Overlay<Int64>.values(500)], sortDescriptors: [FetchSortDescriptor("x")],
            offset: 0, limit: 0, matches: { _, _ in true },
            sortKeys: { id, value in
                if value == nil { probes += 1 }
                return [.integer(value ?? id.primaryKey)]
            })
        #expect(merged.count == 1001)
        #expect(merged.firstIndex(of: id(2000)) == 500)
        #expect(probes <= 11)
    }
}
