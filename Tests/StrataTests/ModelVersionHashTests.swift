import Foundation
import Testing
@testable import Strata

@Suite struct ModelVersionHash {
    static func hash(
        attributes: [AttributeDescription] = [AttributeDescription("name", .string)], extraEntity: Bool = false,
        userInfo: [String: String] = [:], constraints: [[String]] = []
    ) throws -> String {
        var entities = [EntityDescription("Person", attributes: attributes, uniquenessConstraints: constraints,
                                          userInfo: userInfo)]
        if extraEntity { entities.append(EntityDescription("Pet")) }
        return try ManagedObjectModel(entities: entities).versionHash
    }

    @Test func defaultsConstraintsAndUserInfoDoNotChangeTheHash() throws {
        let base = try Self.hash()
        #expect(try Self.hash(attributes: [AttributeDescription("name", .string, defaultValue: "x")]) == base)
        #expect(try Self.hash(attributes: [AttributeDescription("name", .string, minLength: 1, maxLength: 9,
                                                                  regularExpression: "[a-z]+")]) == base)
        #expect(try Self.hash(attributes: [AttributeDescription("name", .string, isOptional: false, isIndexed: true)]) == base)
        #expect(try Self.hash(attributes: [AttributeDescription("name", .string, userInfo: ["k": "v"])]) == base)
        #expect(try Self.hash(userInfo: ["k": "v"], constraints: [["name"]]) == base)
    }

    @Test func storageChangesChangeTheHash() throws {
        let base = try Self.hash()
        let changed = [
            try Self.hash(extraEntity: true),
            try Self.hash(attributes: [AttributeDescription("name", .string), AttributeDescription("age", .integer16)]),
            try Self.hash(attributes: [AttributeDescription("name", .uri)]),
            try Self.hash(attributes: [AttributeDescription("name", .string, isTransient: true)]),
            try Self.hash(attributes: [AttributeDescription("title", .string)]),
        ]
        #expect(!changed.contains(base))
        #expect(Set(changed).count == changed.count)
    }

    @Test func theHashSurvivesJSONAndDiffersBetweenModelVersions() throws {
        let first = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel")
        let third = try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel3")
        #expect(first.versionHash != third.versionHash)
        #expect(try ManagedObjectModel(jsonData: first.jsonRepresentation()).versionHash == first.versionHash)
        #expect(try ModelFixtures.xcodeModel("CoreDataPlus__SampleModel").versionHash == first.versionHash)
    }
}
