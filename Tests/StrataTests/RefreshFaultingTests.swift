import Foundation
import Testing
@testable import Strata

/// The programming guide's Person, written as the guide writes its fix for a stale cached
/// `fullName`: an instance variable `fullNameIsValid`, set to false in `didTurnIntoFault()`,
/// and a custom accessor that recomputes the value when the flag is false. Setting a name
/// updates the cached `fullName` too ("which causes the cached fullName to be updated").
final class GuidePerson: ManagedObject {
    var fullNameIsValid = false

    override func didTurnIntoFault() {
        super.didTurnIntoFault()
        fullNameIsValid = false
    }

    var fullName: String {
        if !fullNameIsValid {
            try? setPrimitiveValue(.string(computedFullName), forKey: "fullName")
            fullNameIsValid = true
        }
        return (try? string("fullName")) ?? ""
    }

    func setFirstName(_ name: String) throws {
        try setValue(.string(name), forKey: "firstName")
        try setValue(.string(computedFullName), forKey: "fullName")
        fullNameIsValid = true
    }

    func setLastName(_ name: String) throws {
        try setValue(.string(name), forKey: "lastName")
        try setValue(.string(computedFullName), forKey: "fullName")
        fullNameIsValid = true
    }

    private var computedFullName: String {
        "\((try? string("firstName")) ?? "") \((try? string("lastName")) ?? "")"
    }
}

/// The example model with ``GuidePerson`` for Employee (kept for the process).
let guidePersonModel: ManagedObjectModel = {
    let model = ManagedObjectModel.employeesExample()
    try! model.register(GuidePerson.self, forEntityName: "Employee")
    return model
}()

/// docs/SEMANTICS.md §5: refresh turns the object into a fault in both modes, as Core
/// Data's does (its public investigation tests observe it), and `refreshAllObjects()`.
@Suite struct RefreshFaulting {
    /// The guide, "Ensuring Data Is Up-to-Date": Sarit Smith is edited in two contexts;
    /// context one sets firstName to Fiona and saves; context two sets lastName to Jones and
    /// is refreshed with merging. Without the fix the transient is restored to the stale
    /// "Sarit Jones"; with the flag cleared in didTurnIntoFault the accessor recomputes it.
    @Test func theGuidesFullNameFixWorks() throws {
        let stack = Stack(model: guidePersonModel)
        let saved = try stack.savedEmployee("Sarit", "Smith")
        let one = stack.newContext()
        let two = stack.newContext()
        let inOne = try #require(try one.existingObject(with: saved.objectID) as? GuidePerson)
        let inTwo = try #require(try two.existingObject(with: saved.objectID) as? GuidePerson)
        #expect(inTwo.fullName == "Sarit Smith")

        try inOne.setFirstName("Fiona")
        #expect(inOne.fullName == "Fiona Smith")
        try one.save()

        try inTwo.setLastName("Jones")
        #expect(inTwo.fullName == "Sarit Jones")

        two.refresh(inTwo, mergeChanges: true)
        #expect(try inTwo.string("firstName") == "Fiona", "not changed before the refresh: the store's value")
        #expect(try inTwo.string("lastName") == "Jones", "changed before the refresh: kept")
        #expect(try inTwo.string("fullName") == "Sarit Jones", "the stored transient is restored, as the guide says")
        #expect(inTwo.fullName == "Fiona Jones", "the accessor saw the flag cleared by didTurnIntoFault")
    }

    @Test func refreshWithMergingCallsBothFaultHooksWithOrWithoutPendingChanges() throws {
        let stack = Stack(model: hookModel)
        let id = try stack.savedEmployee().objectID
        let other = stack.newContext()
        let clean = try #require(try other.existingObject(with: id) as? HookRecordingEmployee)
        clean.calls = []
        other.refresh(clean, mergeChanges: true)
        #expect(clean.calls == ["willTurnIntoFault", "didTurnIntoFault"])

        let edited = try #require(try other.existingObject(with: id) as? HookRecordingEmployee)
        try edited.setValue(.integer(5), forKey: "salary")
        edited.calls = []
        other.refresh(edited, mergeChanges: true)
        #expect(edited.calls == ["willTurnIntoFault", "didTurnIntoFault", "awakeFromFetch"])
        #expect(try edited.int("salary") == 5)
    }

    @Test func refreshWithMergingTurnsAnObjectWithoutPendingChangesIntoAFault() throws {
        let stack = Stack(model: fullNameModel)
        let employee = try stack.savedEmployee("Ada", "Lovelace")
        let other = stack.newContext()
        let loaded = try other.existingObject(with: employee.objectID)
        try loaded.setPrimitiveValue(.string("cached"), forKey: "fullName")
        other.refresh(loaded, mergeChanges: true)
        #expect(loaded.isFault)
        #expect(try loaded.string("fullName") == "Ada Lovelace", "the transient was reset and computed again on fetch")
    }

    @Test func refreshWithMergingKeepsAnObjectWithPendingChangesLoaded() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 1)
        try employee.setValue(.integer(2), forKey: "salary")
        stack.context.refresh(employee, mergeChanges: true)
        #expect(!employee.isFault)
        #expect(try employee.int("salary") == 2)
    }

    @Test func refreshAllObjectsFaultsCleanObjectsAndKeepsPendingChanges() throws {
        let stack = Stack()
        let clean = try stack.savedEmployee("Ada", "Lovelace", salary: 1)
        let edited = try stack.savedEmployee("Alan", "Turing", salary: 1)
        let inserted = try stack.employee("Grace", "Hopper")
        try edited.setValue(.integer(2), forKey: "salary")

        let other = stack.newContext()
        try other.existingObject(with: clean.objectID).setValue(.integer(10), forKey: "salary")
        try other.existingObject(with: edited.objectID).setValue(.string("Byron"), forKey: "lastName")
        try other.save()

        stack.context.refreshAllObjects()
        #expect(clean.isFault)
        #expect(try clean.int("salary") == 10)
        #expect(!edited.isFault)
        #expect(try edited.int("salary") == 2, "the pending change stays")
        #expect(try edited.string("lastName") == "Byron", "the rest was read again")
        #expect(inserted.isInserted && !inserted.isFault)
        #expect(stack.context.hasChanges)
    }
}
