import Foundation
import Testing
@testable import Strata

/// IDs share an interned scope (entity, store, kind): equality by scope identity must match
/// equality of the three fields, and a scope no ID holds must not keep its model alive.
@Suite struct ObjectIDScopes {
    @Test func idsMadeApartForTheSameRecordAreEqualAndShareTheirScope() throws {
        let model = ManagedObjectModel.employeesExample()
        let employee = try #require(model.entitiesByName["Employee"])
        let department = try #require(model.entitiesByName["Department"])
        let first = ManagedObjectID(entity: employee, storeTag: 7, primaryKey: 42)
        var cache = ObjectIDScopeCache()
        let second = cache.id(employee, storeTag: 7, primaryKey: 42)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first.scope === second.scope)
        #expect(Set([first, second]).count == 1)

        #expect(first != ManagedObjectID(entity: employee, storeTag: 8, primaryKey: 42))
        #expect(first != ManagedObjectID(entity: department, storeTag: 7, primaryKey: 42))
        #expect(first != ManagedObjectID(entity: employee, storeTag: 7, primaryKey: 43))
        let temporary = ManagedObjectID.temporary(for: employee)
        let permanentTwin = ManagedObjectID(entity: employee, storeTag: 0, primaryKey: temporary.primaryKey)
        #expect(temporary != permanentTwin)
        #expect(temporary.isTemporaryID && !permanentTwin.isTemporaryID)
        #expect(first.entity === employee && first.storeTag == 7 && !first.isTemporaryID)
    }

    @Test func aCacheFollowsTheStoreTagItIsAskedFor() throws {
        let model = ManagedObjectModel.employeesExample()
        let employee = try #require(model.entitiesByName["Employee"])
        var cache = ObjectIDScopeCache()
        let inOne = cache.id(employee, storeTag: 1, primaryKey: 5)
        let inTwo = cache.id(employee, storeTag: 2, primaryKey: 5)
        #expect(inOne != inTwo)
        #expect(inTwo.storeTag == 2)
        #expect(inOne == ManagedObjectID(entity: employee, storeTag: 1, primaryKey: 5))
    }

    @Test func aScopeNoIDHoldsIsDroppedWithItsModel() throws {
        weak var droppedEntity: EntityDescription?
        weak var heldScope: ObjectIDScope?
        let model = ManagedObjectModel.employeesExample()
        let held = ManagedObjectID(entity: try #require(model.entitiesByName["Employee"]), storeTag: 3, primaryKey: 1)
        heldScope = held.scope
        do {
            let dropped = ManagedObjectModel.employeesExample()
            let entity = try #require(dropped.entitiesByName["Employee"])
            droppedEntity = entity
            _ = ManagedObjectID(entity: entity, storeTag: 3, primaryKey: 1)
            _ = ManagedObjectID.temporary(for: entity)
        }
        ObjectIDScope.purgeUnused()
        #expect(droppedEntity == nil)
        // A scope an ID still holds stays the one its entity's IDs share.
        #expect(heldScope != nil)
        #expect(ManagedObjectID(entity: held.entity, storeTag: 3, primaryKey: 2).scope === held.scope)
    }
}
