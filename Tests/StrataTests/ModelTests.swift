import Foundation
import Testing
@testable import Strata

@Suite struct ModelBasics {
    @Test func aModelResolvesInheritedSlots() throws {
        let person = EntityDescription("Person", isAbstract: true, attributes: [AttributeDescription("name", .string)])
        let employee = EntityDescription("Employee", parent: "Person", attributes: [AttributeDescription("salary", .integer64)])
        let model = try ManagedObjectModel(entities: [person, employee])
        #expect(model.entitiesByName["Employee"]?.slotNames == ["name", "salary"])
        #expect(model.versionHash.count == 64)
    }
}
