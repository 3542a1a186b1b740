import Foundation
import Testing
@testable import Strata

/// A subclass whose typed keys fit the example model's Employee.
final class TypedEmployee: ManagedObject {
    static let firstName = AttributeKey<String>("firstName")
    static let salary = AttributeKey<Int64?>("salary")
    static let rating = AttributeKey<Double?>("rating")
    static let department = ToOneKey<TypedDepartment>("department")
    static let directReports = ToManyKey<TypedEmployee>("directReports")
    override class var typedKeys: [TypedKeyDescription] {
        [.init(firstName), .init(salary), .init(rating), .init(department), .init(directReports)]
    }
}

/// The matching Department.
final class TypedDepartment: ManagedObject {
    static let name = AttributeKey<String>("name")
    static let employees = ToManyKey<TypedEmployee>("employees")
    override class var typedKeys: [TypedKeyDescription] { [.init(name), .init(employees)] }
}

/// A subclass for a one-entity model.
final class ItemSubclass: ManagedObject {}

/// Typed keys that do not fit Employee, one problem each.
final class MistypedEmployee: ManagedObject {
    static let missing = AttributeKey<String>("nickname")
    static let wrongType = AttributeKey<String>("salary")
    static let attributeAsRelationship = ToOneKey<ManagedObject>("firstName")
    static let toOneAsToMany = ToManyKey<ManagedObject>("department")
    static let wrongDestination = ToOneKey<TypedEmployee>("department")
    override class var typedKeys: [TypedKeyDescription] {
        [.init(missing), .init(wrongType), .init(attributeAsRelationship), .init(toOneAsToMany), .init(wrongDestination)]
    }
}

/// docs/SEMANTICS.md §2 (lifecycle, subclasses) and ARCHITECTURE.md "Model identity":
/// class registrations belong to their model, and typed keys are checked when a class is
/// registered.
@Suite struct ClassRegistration {
    /// The bug: registrations were kept in a process-wide table keyed by the model's
    /// address, so a model allocated where a freed one lived inherited its classes. A small
    /// model is allocated right where the freed one was: before the fix this inherited the
    /// class 200 times of 200.
    @Test func aNewModelNeverInheritsTheClassesOfAFreedOne() throws {
        func smallModel() throws -> ManagedObjectModel {
            try ManagedObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("name", .string)])])
        }
        var inherited = 0
        for _ in 0..<200 {
            do {
                let old = try smallModel()
                try old.register(ItemSubclass.self, forEntityName: "Item")
            }
            let fresh = try smallModel()
            if fresh.objectClass(forEntity: try fresh.entity(named: "Item")) != ManagedObject.self { inherited += 1 }
            #expect(fresh.entityName(for: ItemSubclass.self) == nil)
        }
        #expect(inherited == 0)
    }

    @Test func registrationsAreReleasedWithTheirModel() throws {
        weak var released: ManagedObjectModel?
        do {
            let model = ManagedObjectModel.employeesExample()
            try model.register(TypedEmployee.self, forEntityName: "Employee")
            released = model
        }
        #expect(released == nil, "nothing outside the model keeps it or its registrations")
    }

    @Test func twoModelsKeepTheirOwnClasses() throws {
        let first = ManagedObjectModel.employeesExample()
        let second = ManagedObjectModel.employeesExample()
        try first.register(TypedEmployee.self, forEntityName: "Employee")
        #expect(first.objectClass(forEntity: try first.entity(named: "Employee")) == TypedEmployee.self)
        #expect(second.objectClass(forEntity: try second.entity(named: "Employee")) == ManagedObject.self)
    }

    @Test func registeringForAnUnknownEntityThrows() {
        let model = ManagedObjectModel.employeesExample()
        #expect(throws: StrataError.self) { try model.register(TypedEmployee.self, forEntityName: "Employe") }
    }

    @Test func typedKeysThatFitTheModelRegister() throws {
        let model = ManagedObjectModel.employeesExample()
        try model.register(TypedDepartment.self, forEntityName: "Department")
        try model.register(TypedEmployee.self, forEntityName: "Employee")
        let stack = Stack(model: model)
        let employee = try stack.context.insert(TypedEmployee.self)
        employee[TypedEmployee.salary] = 10
        employee[TypedEmployee.department] = try stack.context.insert(TypedDepartment.self)
        #expect(employee[TypedEmployee.department]?[TypedDepartment.employees] == [employee])
    }

    @Test func everyTypedKeyThatDoesNotFitIsReportedAtRegistration() throws {
        let model = ManagedObjectModel.employeesExample()
        try model.register(TypedDepartment.self, forEntityName: "Department")
        let error = try #require(throws: StrataError.self) {
            try model.register(MistypedEmployee.self, forEntityName: "Employee")
        }
        #expect(error.code == .invalidModel)
        let employeeKeys = error.problems.filter { $0.entityName == "Employee" }.compactMap(\.key)
        #expect(Set(employeeKeys) == ["nickname", "salary", "firstName", "department"])
        #expect(employeeKeys.count == 5)
        let departmentKeys = error.problems.filter { $0.entityName == "Department" }.compactMap(\.key)
        #expect(departmentKeys == ["employees"], "Department's key expects TypedEmployee objects")
        #expect(model.entityName(for: MistypedEmployee.self) == nil, "a class that does not fit is not registered")
    }

    // MARK: Throwing forms

    @Test func theThrowingFormsReadAndWrite() throws {
        let model = ManagedObjectModel.employeesExample()
        try model.register(TypedDepartment.self, forEntityName: "Department")
        try model.register(TypedEmployee.self, forEntityName: "Employee")
        let stack = Stack(model: model)
        let employee = try stack.context.insert(TypedEmployee.self)
        let department = try stack.context.insert(TypedDepartment.self)
        try employee.setValue(42, for: TypedEmployee.salary)
        try employee.setObject(department, for: TypedEmployee.department)
        #expect(try employee.value(for: TypedEmployee.salary) == 42)
        #expect(try employee.object(for: TypedEmployee.department) === department)
        #expect(try department.objects(for: TypedDepartment.employees) == [employee])
        try department.setObjects([], for: TypedDepartment.employees)
        #expect(try employee.object(for: TypedEmployee.department) == nil)
    }

    @Test func aWrongKeyThrowsInsteadOfStopping() throws {
        let stack = Stack()
        let employee = try stack.employee()
        #expect(throws: StrataError.self) { try employee.value(for: AttributeKey<String>("nickname")) }
        #expect(throws: StrataError.self) { try employee.setValue("x", for: AttributeKey<String>("nickname")) }
        #expect(throws: StrataError.self) { try employee.object(for: ToOneKey<ManagedObject>("boss")) }
    }

    @Test func aDestinationOfAnotherClassThrowsTypeMismatch() throws {
        let stack = Stack()
        let employee = try stack.employee()
        try employee.setObject(try stack.department(), forKey: "department")
        let error = try #require(throws: StrataError.self) { try employee.object(for: ToOneKey<TypedDepartment>("department")) }
        #expect(error.code == .typeMismatch)
    }

    @Test func aDeadObjectThrowsInsteadOfStopping() throws {
        let stack = Stack()
        let employee = try stack.savedEmployee(salary: 100)
        let other = stack.newContext()
        other.delete(try other.existingObject(with: employee.objectID))
        try other.save()
        stack.context.refresh(employee, mergeChanges: false)
        #expect(throws: StrataError.self) { try employee.value(for: AttributeKey<Int64?>("salary")) }
        stack.context.reset()
        #expect(throws: StrataError.self) { try employee.setValue(1, for: AttributeKey<Int64?>("salary")) }
    }

    @Test func aDestinationRegisteredLaterIsCheckedAgainstEarlierKeys() throws {
        let model = ManagedObjectModel.employeesExample()
        try model.register(TypedEmployee.self, forEntityName: "Employee")   // department: TypedDepartment
        let error = try #require(throws: StrataError.self) {
            try model.register(MistypedEmployee.self, forEntityName: "Department")
        }
        #expect(error.problems.contains { $0.entityName == "Employee" && $0.key == "department" })
        #expect(model.objectClass(forEntity: try model.entity(named: "Department")) == ManagedObject.self, "undone")
        try model.register(TypedDepartment.self, forEntityName: "Department")
    }
}
