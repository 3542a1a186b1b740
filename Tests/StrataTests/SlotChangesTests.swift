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
        #expect(inverse.old(at: 1) == .integer(9) && inverse.new(at: 1) == .null && inverse.slot(at: 1) == 4)
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
}
