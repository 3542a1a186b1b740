import Foundation
import Testing
@testable import Strata

@Suite struct ModelMerging {
    static func people() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [EntityDescription("Person", attributes: [AttributeDescription("name", .string)],
                                         relationships: [RelationshipDescription("items", to: "Item", toMany: true, inverse: "owner")])
                       , EntityDescription("Item", attributes: [AttributeDescription("label", .string)],
                                           relationships: [RelationshipDescription("owner", to: "Person", inverse: "items")])],
            configurations: ["Main": ["Person", "Item"], "People": ["Person"]],
            fetchRequestTemplates: [FetchRequestTemplate(name: "named", entity: "Person", predicate: "name == $NAME")],
            versionIdentifier: "7")
    }

    static func places() throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [EntityDescription("Place", attributes: [AttributeDescription("city", .string)]),
                       EntityDescription("Office", parent: "Place")],
            configurations: ["Main": ["Place", "Office"]],
            fetchRequestTemplates: [FetchRequestTemplate(name: "inCity", entity: "Place", predicate: "city == $CITY")],
            versionIdentifier: "7")
    }

    @Test func mergingCopiesEntitiesAndUnitesConfigurationsAndTemplates() throws {
        let people = try Self.people()
        let places = try Self.places()
        let merged = try ManagedObjectModel(merging: [people, places])
        #expect(merged.entities.map(\.name) == ["Person", "Item", "Place", "Office"])
        #expect(merged.configurations == ["Main": ["Person", "Item", "Place", "Office"], "People": ["Person"]])
        #expect(merged.fetchRequestTemplatesByName.keys.sorted() == ["inCity", "named"])
        #expect(merged.versionIdentifier == "7")
        #expect(merged.entitiesByName["Office"]?.superentity?.name == "Place")
        #expect(merged.entitiesByName["Item"]?.relationshipsByName["owner"]?.inverseSlot != nil)
        // The sources are untouched: their entities still belong to them.
        #expect(people.entities[0].model === people)
        #expect(merged.entities[0] !== people.entities[0])
        #expect(merged.entities[0].model === merged)
    }

    @Test func mergingAModelWithItselfNamesTheDuplicatedEntity() throws {
        let people = try Self.people()
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(merging: [people, people]) }
        #expect(error.code == .invalidModel)
        #expect(error.context.entity == "Person")
        #expect(error.message.contains("entity 'Person' is defined twice"))
        #expect(error.problems.map(\.entityName) == ["Person", "Item"])
    }

    @Test func mergingKeepsTheVersionIdentifierOnlyWhenModelsAgree() throws {
        let other = try ManagedObjectModel(entities: [EntityDescription("Other")], versionIdentifier: "8")
        #expect(try ManagedObjectModel(merging: [Self.people(), other]).versionIdentifier == nil)
        #expect(try ManagedObjectModel(merging: []).entities.isEmpty)
    }

    @Test func conflictingTemplatesCannotBeMerged() throws {
        let other = try ManagedObjectModel(
            entities: [EntityDescription("Other")],
            fetchRequestTemplates: [FetchRequestTemplate(name: "named", entity: "Other", predicate: "TRUEPREDICATE")])
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(merging: [Self.people(), other]) }
        #expect(error.message.contains("fetch request template 'named'"))
    }

    @Test func mergedFixtureModelsResolveAcrossTheirEntities() throws {
        let merged = try ManagedObjectModel(merging: [
            ModelFixtures.xcodeModel("CoreStore__Model"), ModelFixtures.xcodeModel("mogenerator__test"),
        ])
        #expect(merged.entities.count == 11)
        #expect(merged.fetchRequestTemplatesByName.count == 5)
        #expect(merged.configurations.keys.sorted() == ["Config1", "Config2"])
    }
}
