import Foundation
import Testing
@testable import Strata

@Suite struct InMemoryStoreAtomicity {
    @Test func aSaveThatFailsHalfwayLeavesEveryRecordAsItWas() throws {
        let model = sharedExampleModel
        let store = InMemoryStore(model: model)
        let department = try model.entity(named: "Department")
        let first = store.objectID(for: department, primaryKey: 1)
        var values = RowTable.persistent(Array(repeating: .null, count: department.slotCount), of: department)
        values[try #require(department.slot(forKey: "name"))] = "Research"
        try store.save(StoreSaveRequest(groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: [.insert(first, values: values)]),
        ]))
        let nameSlot = try #require(department.slot(forKey: "name"))
        let second = store.objectID(for: department, primaryKey: 2)
        let missing = store.objectID(for: department, primaryKey: 99)
        #expect(throws: StrataError.self) {
            try store.save(StoreSaveRequest(groups: [
                SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "", operations: [
                    .update(first, changes: [SlotChange(slot: nameSlot, old: "Research", new: "Sales")]),
                    .insert(second, values: values),
                    .delete(first, values: values),
                    .update(missing, changes: [SlotChange(slot: nameSlot, old: .null, new: "X")]),
                ]),
            ]))
        }
        #expect(try store.values(for: first)?[nameSlot] == "Research")
        #expect(try store.values(for: second) == nil)
        #expect(try store.objectIDs(for: department, includingSubentities: true) == [first])
    }
}
