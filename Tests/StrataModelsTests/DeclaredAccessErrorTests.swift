import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// `@Entity` properties cannot throw, yet a caller's problem never stops the program: as
/// with the typed subscripts (docs/SEMANTICS.md, "Typed access"), the error is recorded,
/// naming the object and key, and the next save throws it before saving anything.
@Suite("Declared properties' access errors")
struct DeclaredAccessErrorTests {
    @Test func aPropertyOfAnObjectAnotherContextDeletedReadsAsNullAndTheNextSaveThrows() throws {
        let stack = try DocumentStack(model: try staffModel())
        let research = try stack.context.insert(Department.self)
        research.name = "Research"
        try stack.context.save()
        let other = stack.newContext()
        other.delete(try other.existingObject(with: research.objectID, as: Department.self))
        try other.save()

        stack.context.refresh(research, mergeChanges: false)
        #expect(research.name == "")
        #expect(research.employees.isEmpty)
        research.name = "Development"
        let errors = stack.context.typedAccessErrors
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0.context.object == research.objectID.description })
        let error = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(error.code == errors[0].code && error.message.contains("2 more"))
        #expect(stack.context.typedAccessErrors.isEmpty)
    }

    @Test func aCodableValueThatDoesNotDecodeIsAnErrorNamingTheObjectAndKey() throws {
        let stack = try DocumentStack(model: try staffModel())
        let ada = try stack.context.insert(Employee.self)
        (ada.firstName, ada.lastName) = ("Ada", "Lovelace")
        ada.address = Address(street: "12 St James's Square", city: "London")
        #expect(ada.address?.city == "London")
        // JSON of another shape (the type changed since it was written).
        try ada.setValue(.data(Data(#"{"street": 5}"#.utf8)), forKey: "address")
        #expect(ada.address == nil)
        let error = try #require(stack.context.typedAccessErrors.first)
        #expect(error.code == .typeMismatch)
        #expect(error.context.entity == "Employee" && error.context.key == "address" && error.context.object == ada.objectID.description)
        #expect(error.message.contains("Address"))
        let saveError = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(saveError.context.key == "address")
        #expect(try stack.newContext().count(for: FetchRequest<Employee>()) == 0)
    }

    @Test func aRawValueNoCaseHasReadsAsTheDefaultWithAnError() throws {
        let stack = try DocumentStack(model: try staffModel())
        let ada = try stack.context.insert(Employee.self)
        (ada.firstName, ada.lastName, ada.grade) = ("Ada", "Lovelace", .senior)
        try ada.setValue(.string("principal"), forKey: "grade")
        #expect(ada.grade == .junior)
        let error = try #require(stack.context.typedAccessErrors.first)
        #expect(error.code == .typeMismatch && error.context.key == "grade")
        #expect(error.message.contains("Grade"))
        // Handled: the caller forgets it and the save goes through.
        stack.context.clearTypedAccessErrors()
        ada.grade = .senior
        try stack.context.save()
        let reader = stack.newContext()
        #expect(try reader.fetch(FetchRequest<Employee>()).map(\.grade) == [.senior])
        #expect(reader.typedAccessErrors.isEmpty)
    }
}
