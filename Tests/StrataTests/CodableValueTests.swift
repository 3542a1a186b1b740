import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// docs/SEMANTICS.md "Typed access": a Codable value that does not decode is an error
/// naming the object and key, and Codable values are JSON that `sqlite3` reads in the
/// compacted snapshot.
@Suite struct CodableValueTests {
    @Test func aCodableValueIsJSONThatSQLiteReadsInTheSnapshot() throws {
        let stack = try DocumentStack(model: try swiftTypedModel(), configuration: manualCompaction())
        let staff = try insertSwiftStaff(into: stack.context)
        staff[0].notes = EmployeeNotes(text: "Leads \"Apollo\"", tags: ["lead", "ü"])
        try stack.context.save()
        try stack.store.compact()
        // The snapshot's column, read with the SQLite library through its own connection.
        let rows = try sqlRows(stack.url, """
            SELECT CAST(notes AS TEXT), json_extract(CAST(notes AS TEXT), '$.tags[1]') FROM Person WHERE lastName = 'Adams'
            """)
        guard case .text(let json)? = rows.first?.first else {
            Issue.record("no JSON text in the snapshot: \(rows)")
            return
        }
        let decoded = try JSONDecoder().decode(EmployeeNotes.self, from: Data(json.utf8))
        #expect(decoded == EmployeeNotes(text: "Leads \"Apollo\"", tags: ["lead", "ü"]))
        #expect(rows.first?.last == .text("ü"))
        // And back through Strata after compaction.
        let reader = stack.newContext()
        let reread = try reader.fetch(FetchRequest<SwiftEmployee>(predicate: #Predicate { $0.lastName == "Adams" }))
        #expect(reread.first?.notes == decoded)
    }

    @Test func anUndecodableValueIsAnErrorNamingTheObjectAndKey() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        let employee = try insertSwiftStaff(into: stack.context)[0]
        // JSON of another shape (the type changed since it was written).
        try employee.setValue(.data(Data(#"{"text": 5}"#.utf8)), forKey: "notes")
        let error = try #require(throws: StrataError.self) { try employee.value(for: SwiftEmployee.notesKey) }
        #expect(error.code == .typeMismatch)
        #expect(error.context.key == "notes" && error.context.object == employee.objectID.description && error.context.entity == "Employee")
        #expect(error.message.contains("EmployeeNotes"))

        // The property cannot throw: nil now, the error for the next save, which saves nothing.
        #expect(employee.notes == nil)
        #expect(stack.context.typedAccessErrors.map(\.context.key) == ["notes"])
        let saveError = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(saveError.context.key == "notes")
        #expect(try stack.newContext().count(for: FetchRequest<SwiftEmployee>()) == 0)
    }

    @Test func bytesThatAreNotJSONAreAnErrorToo() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        let employee = try insertSwiftStaff(into: stack.context)[0]
        try employee.setValue(.data(Data([0xFF, 0x00, 0x01])), forKey: "notes")
        #expect(throws: StrataError.self) { try employee.value(for: SwiftEmployee.notesKey) }
        // A value that is null stays nil without an error.
        try employee.setValue(.null, forKey: "notes")
        #expect(try employee.value(for: SwiftEmployee.notesKey).value == nil)
        #expect(stack.context.typedAccessErrors.isEmpty)
    }

    @Test func aValueJSONCannotHoldIsAnErrorWhenWritten() throws {
        let stack = try DocumentStack(model: try swiftTypedModel())
        let employee = try insertSwiftStaff(into: stack.context)[0]
        let key = AttributeKey<Transformed<Double>>("notes")
        let error = try #require(throws: StrataError.self) { try employee.setValue(Transformed(Double.nan), for: key) }
        #expect(error.code == .typeMismatch && error.context.key == "notes")
        employee[key] = Transformed(.infinity)
        #expect(stack.context.typedAccessErrors.count == 1)
    }
}
