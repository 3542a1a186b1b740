import Foundation
import Testing
@testable import Strata

/// docs/SEMANTICS.md §2: object IDs, uniquing, faults.
@Suite struct ObjectIdentity {
    // MARK: Object IDs

    @Test func anInsertedObjectHasATemporaryIDUntilTheSaveAssignsAPermanentOne() throws {
        let stack = Stack()
        let employee = try stack.employee()
        let temporary = employee.objectID
        #expect(temporary.isTemporaryID)
        #expect(temporary.storeIdentifier == nil)

        try stack.context.save()
        #expect(!employee.objectID.isTemporaryID)
        #expect(employee.objectID != temporary)
        #expect(employee.objectID.storeIdentifier == stack.store.identifier)
        #expect(stack.context.registeredObject(for: employee.objectID) === employee)
        #expect(stack.context.registeredObject(for: temporary) == nil)
    }

    @Test func aSaveRewritesTemporaryIDsHeldInRelationships() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee()
        try employee.setObject(department, forKey: "department")
        try stack.context.save()
        #expect(try employee.value(forKey: "department") == .object(department.objectID))
        #expect(!department.objectID.isTemporaryID)
        #expect(try department.value(forKey: "employees").objectIDs == [employee.objectID])
    }

    @Test func aURIRepresentationRoundTripsThroughTheCoordinator() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let uri = employee.objectID.uriRepresentation()
        #expect(uri.scheme == "x-strata")
        let resolved = try stack.coordinator.managedObjectID(forURIRepresentation: uri)
        #expect(resolved == employee.objectID)
        #expect(resolved.hashValue == employee.objectID.hashValue)
        #expect(resolved.uriRepresentation() == uri)
        let other = stack.newContext()
        #expect(try other.existingObject(with: resolved).string("firstName") == "Ada")
    }

    @Test func malformedURIsAreRejectedWithInvalidObjectID() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let store = stack.store.identifier
        let bad = [
            "http://\(store)/Employee/p1",  // scheme
            "x-strata://no-such-store/Employee/p1",  // store
            "x-strata://\(store)/Nobody/p1",  // entity
            "x-strata://\(store)/Employee/q1",  // key
            "x-strata://\(store)/Employee/p0",  // key
        ]
        for text in bad {
            let error = strataError { _ = try stack.coordinator.managedObjectID(forURIRepresentation: URL(string: text)!) }
            #expect(error?.code == .invalidObjectID, "\(text)")
        }
        // A temporary ID names no record, so its URI does not resolve.
        let pending = try stack.employee()
        let error = strataError {
            _ = try stack.coordinator.managedObjectID(forURIRepresentation: pending.objectID.uriRepresentation())
        }
        #expect(error?.code == .invalidObjectID)
        #expect(!employee.objectID.isTemporaryID)
    }

    @Test func objectIDsAreEqualAcrossContextsOfOneCoordinator() async throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let first = stack.newContext()
        let second = stack.newContext()
        let a = try first.existingObject(with: employee.objectID)
        let b = try second.existingObject(with: employee.objectID)
        #expect(a !== b)
        #expect(a.objectID == b.objectID)
        #expect(a.objectID == employee.objectID)
        #expect(Set([a.objectID, b.objectID, employee.objectID]).count == 1)
        #expect(try stack.store.objectIDs(for: employee.entity, includingSubentities: false) == [employee.objectID])
        // IDs are Sendable: one crosses to another task and comes back equal.
        let id = employee.objectID
        let back = await Task.detached { id }.value
        #expect(back == a.objectID)
    }

    // MARK: Uniquing

    @Test func objectWithReturnsTheRegisteredInstance() throws {
        let stack = Stack()
        let employee = try stack.employee()
        #expect(stack.context.object(with: employee.objectID) === employee)
        try stack.context.save()
        #expect(stack.context.object(with: employee.objectID) === employee)
        #expect(try stack.context.existingObject(with: employee.objectID) === employee)

        let other = stack.newContext()
        let first = other.object(with: employee.objectID)
        #expect(other.object(with: employee.objectID) === first)
        #expect(try other.existingObject(with: employee.objectID) === first)
        #expect(other.registeredObjects.count == 1)
    }

    @Test func registeredObjectForIsNilWhenNotRegisteredAndNeverLoads() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let other = stack.newContext()
        #expect(other.registeredObject(for: employee.objectID) == nil)
        #expect(other.registeredObjects.isEmpty)
        let fault = other.object(with: employee.objectID)
        #expect(other.registeredObject(for: employee.objectID) === fault)
        #expect(fault.isFault, "registeredObject(for:) must not load the object")
    }

    @Test func existingObjectThrowsObjectNotFoundForAMissingRecord() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let missing = try stack.coordinator.managedObjectID(
            forURIRepresentation: URL(string: "x-strata://\(stack.store.identifier)/Employee/p999")!)
        let other = stack.newContext()
        #expect(strataError { _ = try other.existingObject(with: missing) }?.code == .objectNotFound)

        // A record deleted by another context's save is missing too.
        let id = employee.objectID
        stack.context.delete(employee)
        try stack.context.save()
        let third = stack.newContext()
        #expect(strataError { _ = try third.existingObject(with: id) }?.code == .objectNotFound)
    }

    @Test func aFaultForAVanishedRecordThrowsObjectNotFoundWhenFired() throws {
        let stack = Stack()
        let missing = try stack.coordinator.managedObjectID(
            forURIRepresentation: URL(string: "x-strata://\(stack.store.identifier)/Employee/p42")!)
        let fault = stack.context.object(with: missing)
        #expect(fault.isFault)
        #expect(strataError { _ = try fault.value(forKey: "firstName") }?.code == .objectNotFound)
    }

    // MARK: Faults

    @Test func anObjectObtainedByObjectWithInASecondContextIsAFault() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let other = stack.newContext()
        let fault = other.object(with: employee.objectID)
        #expect(fault.isFault)
        #expect(fault.storage.isEmpty)
        #expect(!employee.isFault)
    }

    @Test func identityAndStateAccessorsDoNotFireAFault() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee()
        let other = stack.newContext()
        let fault = other.object(with: employee.objectID)

        #expect(fault.objectID == employee.objectID)
        #expect(fault.entity.name == "Employee")
        #expect(fault.context === other)
        #expect(fault == fault)
        #expect(fault != employee)
        var hasher = Hasher()
        fault.hash(into: &hasher)
        _ = hasher.finalize()
        #expect(Set([fault, fault]).count == 1)
        #expect(!fault.isInserted)
        #expect(!fault.isUpdated)
        #expect(!fault.isDeleted)
        #expect(!fault.hasChanges)
        #expect(fault.description.hasSuffix("(fault)"))
        #expect(fault.hasFault(forRelationshipNamed: "department"))
        #expect(!other.hasChanges)
        #expect(fault.isFault, "an identity or state accessor fired the fault")
    }

    @Test func readingAPropertyFiresTheFault() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 52_000)
        let other = stack.newContext()
        let fault = other.object(with: employee.objectID)
        #expect(fault.isFault)
        #expect(try fault.int("salary") == 52_000)
        #expect(!fault.isFault)
        #expect(try fault.string("lastName") == "Lovelace")
        #expect(!fault.hasChanges, "firing a fault is not a change")
        #expect(!other.hasChanges)
    }

    @Test func aRelationshipsDestinationsStayFaultsUntilTouched() throws {
        let stack = Stack()
        let department = try stack.department()
        let employee = try stack.employee()
        let project = try stack.project()
        try employee.setObject(department, forKey: "department")
        try employee.mutableSetValue(forKey: "projects").add(project)
        try stack.context.save()

        let other = stack.newContext()
        let loaded = try other.existingObject(with: employee.objectID)
        #expect(loaded.hasFault(forRelationshipNamed: "department"))
        #expect(loaded.hasFault(forRelationshipNamed: "projects"))
        #expect(!loaded.hasFault(forRelationshipNamed: "directReports"), "an empty to-many has nothing to load")

        let reachedDepartment = try #require(try loaded.related("department"))  // held: the registry is weak
        #expect(reachedDepartment.isFault, "reaching a destination does not load it")
        #expect(loaded.hasFault(forRelationshipNamed: "department"))
        #expect(try reachedDepartment.string("name") == "Research")
        #expect(!loaded.hasFault(forRelationshipNamed: "department"))
        #expect(loaded.hasFault(forRelationshipNamed: "projects"))

        let members = try loaded.objects(forKey: "projects")  // held: the registry is weak
        for member in members { _ = try member.value(forKey: "name") }
        #expect(!loaded.hasFault(forRelationshipNamed: "projects"))
        #expect(members.count == 1)
    }

    @Test func setsAndDictionariesOfIDsKeepEveryDistinctIDAndFindEqualOnes() throws {
        // IDs use their own seeded hash in Set and Dictionary; check it against equality.
        let employee = try sharedExampleModel.entity(named: "Employee")
        let department = try sharedExampleModel.entity(named: "Department")
        var ids: [ManagedObjectID] = []
        for key in Int64(-50)..<2_000 {
            ids.append(ManagedObjectID(entity: employee, storeTag: 1, primaryKey: key))
            ids.append(ManagedObjectID(entity: department, storeTag: 1, primaryKey: key))
            ids.append(ManagedObjectID(entity: employee, storeTag: 2, primaryKey: key))
        }
        let set = Set(ids)
        #expect(set.count == ids.count)
        let copies = ids.map { ManagedObjectID(entity: $0.entity, storeTag: $0.storeTag, primaryKey: $0.primaryKey) }
        #expect(copies.allSatisfy(set.contains))
        #expect(copies.map(\.hashValue) == ids.map(\.hashValue))
        var byID: [ManagedObjectID: Int] = [:]
        for (index, id) in ids.enumerated() { byID[id] = index }
        #expect(copies.enumerated().allSatisfy { byID[$0.element] == $0.offset })
        #expect(!set.contains(ManagedObjectID(entity: department, storeTag: 2, primaryKey: 0)))
    }
}
