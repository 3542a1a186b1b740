import Foundation
import Testing
@testable import Strata

/// ``SlotChanges``: an update's changes, whose inverse reads the same storage swapped.
@Suite struct SlotChangesBehaviour {
    let changes: SlotChanges = [
        SlotChange(slot: 1, old: .string("a"), new: .string("b")),
        SlotChange(slot: 4, old: .null, new: .integer(9)),
    ]

    @Test func theInverseSwapsOldAndNewOfEveryChangeInOrder() {
        let inverse = changes.inverse
        #expect(Array(inverse) == [
            SlotChange(slot: 1, old: .string("b"), new: .string("a")),
            SlotChange(slot: 4, old: .integer(9), new: .null),
        ])
        #expect(inverse.old(at: 1) == .integer(9) && inverse[1].new == .null && inverse.slot(at: 1) == 4)
        #expect(inverse.inverse == changes)
    }

    @Test func equalityAndHashingFollowTheChangesAsReadNotHowTheyAreStored() {
        let built = SlotChanges(changes.map { SlotChange(slot: $0.slot, old: $0.new, new: $0.old) })
        #expect(built == changes.inverse)
        #expect(changes.inverse == built)
        #expect(built.hashValue == changes.inverse.hashValue)
        #expect(Set([built, changes.inverse]).count == 1)
        #expect(changes != changes.inverse)
    }

    @Test func anOperationsInverseIsItsOwnInverseAndMapsValuesOnBothSides() throws {
        let entity = try sharedExampleModel.entity(named: "Employee")
        let id = ManagedObjectID(entity: entity, storeTag: 1, primaryKey: 3)
        let other = ManagedObjectID(entity: entity, storeTag: 1, primaryKey: 4)
        let operation = ChangeOperation.update(id, changes: [SlotChange(slot: 0, old: .object(id), new: .object(other))])
        #expect(operation.inverse.inverse == operation)
        let mapped = operation.inverse.mapIDs { $0 == other ? id : other }
        #expect(mapped == .update(other, changes: [SlotChange(slot: 0, old: .object(id), new: .object(other))]))
    }

    @Test func updatesWrittenIntoSharedBuffersReadOnlyTheirOwnChanges() throws {
        let entity = try sharedExampleModel.entity(named: "Employee")
        let count = 70_000  // past one 65,536-change buffer; starts with room for far fewer
        var writer = SlotChangesWriter(expected: 10)
        var written: [SlotChanges] = []
        var expected: [[SlotChange]] = []
        for index in 0..<count {
            let changes = index % 3 == 0
                ? [SlotChange(slot: 0, old: .null, new: .integer(Int64(index))), SlotChange(slot: 1, old: .string("\(index)"), new: .null)]
                : [SlotChange(slot: 2, old: .null, new: .integer(Int64(index)))]
            written.append(changes.count == 1 ? writer.write(changes[0]) : writer.write(changes))
            expected.append(changes)
        }
        let mismatch = written.indices.first { Array(written[$0]) != expected[$0] }
        #expect(mismatch == nil, "update \(mismatch ?? -1)")
        let second = written[0]
        #expect(second.count == 2 && second.slot(at: 1) == 1 && second.inverse[1].new == .string("0"))
        #expect(second.mapValues { $0 } == second && second == SlotChanges(expected[0]))
        let id = ManagedObjectID(entity: entity, storeTag: 1, primaryKey: 1)
        #expect(ChangeOperation.update(id, changes: written[1]) == .update(id, changes: SlotChanges(expected[1])))
    }
}
