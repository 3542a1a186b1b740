import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// An `@Entity` class used with a model that was not built from it: registering it checks
/// every declared property against the entity, and an object made directly for an entity
/// that does not fit records errors at each access instead of trapping
/// (docs/SEMANTICS.md, "Typed access").
@Suite("Declared classes with hand-registered models")
struct DeclaredRegistrationTests {
    @Test func aClassThatFitsTheJSONModelRegisters() throws {
        let json = try ManagedObjectModel(jsonData: Data(staffJSON.utf8))
        try json.register(Department.self, forEntityName: "Department")
        try json.register(Employee.self, forEntityName: "Employee")
        #expect(json.objectClass(forEntity: try json.entity(named: "Employee")) == Employee.self)
    }

    @Test func aClassWhosePropertiesDisagreeWithTheEntityIsRefusedNamingEachProperty() throws {
        var changed = staffJSON
        changed = changed.replacingOccurrences(of: #"{"name": "salary", "type": "integer64", "default": 50000}"#,
                                               with: #"{"name": "salary", "type": "string"}"#)
        changed = changed.replacingOccurrences(of: #"{"name": "department", "destination": "Department", "inverse": "employees"}"#,
                                               with: #"{"name": "department", "destination": "Department", "toMany": true, "inverse": "employees"}"#)
        changed = changed.replacingOccurrences(of: #"{"name": "employees", "destination": "Employee", "toMany": true, "inverse": "department", "deleteRule": "cascade"}"#,
                                               with: #"{"name": "employees", "destination": "Employee", "toMany": true, "inverse": "department"}"#)
        changed = changed.replacingOccurrences(of: #"{"name": "homepage", "type": "uri"},"#, with: "")
        let model = try ManagedObjectModel(jsonData: Data(changed.utf8))
        let error = try #require(throws: StrataError.self) { try model.register(Employee.self, forEntityName: "Employee") }
        #expect(error.code == .invalidModel)
        let reasons = Dictionary(error.problems.map { ($0.key ?? "", $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons["salary"]?.contains("does not hold the entity's string attribute") == true)
        #expect(reasons["department"]?.contains("to-many") == true)
        #expect(reasons["homepage"]?.contains("has no attribute homepage") == true)
        #expect(reasons.count == 3)
        // Refused: the entity keeps making plain objects.
        #expect(model.objectClass(forEntity: try model.entity(named: "Employee")) == ManagedObject.self)
    }

    @Test func aCompositeWhoseElementsDifferIsRefused() throws {
        let changed = branchJSON.replacingOccurrences(of: #"{"name": "zip", "type": "string","#, with: #"{"name": "postcode", "type": "string","#)
        let model = try ManagedObjectModel(jsonData: Data(changed.utf8))
        let error = try #require(throws: StrataError.self) { try model.register(Branch.self, forEntityName: "Branch") }
        #expect(error.problems.contains { $0.key == "address" && $0.reason.contains("declares no element postcode") || $0.reason.contains("has no element zip") })
        // An element the struct lacks would be cleared by every write: refused too.
        let extra = branchJSON.replacingOccurrences(of: #"{"name": "floor","#, with: #"{"name": "room", "type": "string"}, {"name": "floor","#)
        let wider = try ManagedObjectModel(jsonData: Data(extra.utf8))
        let refused = try #require(throws: StrataError.self) { try wider.register(Branch.self, forEntityName: "Branch") }
        #expect(refused.problems.contains { $0.key == "address" && $0.reason.contains("declares no element room") })
    }

    @Test func anObjectMadeForAnEntityThatDoesNotFitItsClassRecordsErrorsInsteadOfTrapping() throws {
        // Branch's entity is not Clerk's: every declared property of the Clerk names a key
        // the entity lacks, or one of another kind.
        let stack = try DocumentStack(model: try branchModel())
        let branchEntity = try stack.context.model.entity(named: "Branch")
        let odd = Clerk(entity: branchEntity, insertInto: stack.context)
        #expect(odd.pay == 0) // its initial value
        #expect(odd.branch == nil)
        odd.pay = 5
        odd.branch = nil
        let errors = stack.context.typedAccessErrors
        #expect(errors.count == 4)
        #expect(errors.allSatisfy { $0.code == .unknownKey })
        #expect(throws: StrataError.self) { try stack.context.save() }
    }

    @Test func aPropertyOfATypeThatCannotBeStoredRecordsAnError() throws {
        let stack = try DocumentStack(model: try branchModel())
        let holder = UnstorableHolder(entity: try stack.context.model.entity(named: "Clerk"), insertInto: stack.context)
        #expect(holder.handler == nil)
        holder.handler = NotStorable()
        let errors = stack.context.typedAccessErrors
        #expect(errors.count == 3) // the read's unknown key, its type, and the write's type
        #expect(errors.contains { $0.code == .typeMismatch && $0.message.contains("NotStorable") && $0.context.key == "handler" })
        stack.context.clearTypedAccessErrors()
    }

    @Test func aTypedResultsControllerOverObjectsOfAnotherClassThrowsAndAdmitsNone() throws {
        // The JSON model registers no class: its Clerk objects are plain ManagedObjects.
        let stack = try DocumentStack(model: try ManagedObjectModel(jsonData: Data(branchJSON.utf8)))
        let clerk = try stack.context.insertObject(forEntityName: "Clerk")
        try clerk.setValue("Cato", forKey: "name")
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Clerk>(entityName: "Clerk"),
                                                  managedObjectContext: stack.context)
        let error = try #require(throws: StrataError.self) { try controller.performFetch() }
        #expect(error.code == .typeMismatch && error.context.entity == "Clerk")
        // An empty request fetches; a later plain object is not admitted as a Clerk.
        let empty = FetchedResultsController(fetchRequest: FetchRequest<Clerk>(entityName: "Clerk", predicate: try FetchPredicate(format: "name == 'nobody'")),
                                             managedObjectContext: stack.context)
        try empty.performFetch()
        let other = try stack.context.insertObject(forEntityName: "Clerk")
        try other.setValue("nobody", forKey: "name")
        stack.context.processPendingChanges()
        #expect(empty.fetchedObjects?.isEmpty == true)
    }
}

/// A class `ManagedObjectModel(types:)` refuses (NotStorable cannot be stored), made
/// directly for another entity.
@Entity
final class UnstorableHolder: ManagedObject {
    var handler: NotStorable?
}
