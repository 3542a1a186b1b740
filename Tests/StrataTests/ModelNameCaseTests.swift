import Foundation
import Testing
@testable import Strata

/// SQLite compares table and column names without regard to ASCII case, so a model whose
/// names differ only by case is refused by validation, naming both, instead of failing
/// later in `CREATE TABLE` with `duplicate column name`.
@Suite struct ModelNameCase {
    @Test func propertyNamesThatDifferOnlyByCaseAreRefusedNamingBoth() {
        let entity = EntityDescription("Person", attributes: [
            AttributeDescription("name", .string), AttributeDescription("Name", .string),
        ])
        let problems = ModelFixtures.problems([entity])
        #expect(problems.count == 1)
        #expect(problems.first?.entityName == "Person")
        #expect(problems.first?.reason.contains("names 'name' and 'Name' differ only by case") == true)
    }

    @Test func subEntitiesSharingTheRootTableAreChecked() {
        let root = EntityDescription("Person", attributes: [AttributeDescription("email", .string)])
        let employee = EntityDescription("Employee", parent: "Person", attributes: [AttributeDescription("Email", .string)])
        let customer = EntityDescription("Customer", parent: "Person", attributes: [AttributeDescription("level", .integer32)])
        let contractor = EntityDescription("Contractor", parent: "Person", attributes: [AttributeDescription("LEVEL", .integer32)])
        let problems = ModelFixtures.problems([root, employee, customer, contractor])
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.reason.contains("table 'Person'") })
        #expect(problems.contains { $0.reason.contains("'email' and 'Email'") })
        #expect(problems.contains { $0.reason.contains("'level' and 'LEVEL'") })
        // The same name in two siblings is fine: the schema renames one column.
        let a = EntityDescription("A", parent: "Person", attributes: [AttributeDescription("code", .string)])
        let b = EntityDescription("B", parent: "Person", attributes: [AttributeDescription("code", .string)])
        #expect(ModelFixtures.problems([EntityDescription("Person"), a, b]).isEmpty)
        // Strata's own columns are taken in any case.
        let reserved = EntityDescription("Thing", attributes: [AttributeDescription("_PK", .integer64)])
        #expect(ModelFixtures.problems([reserved]).first?.reason.contains("'_pk' and '_PK'") == true)
    }

    @Test func entityAndJoinTableNamesThatDifferOnlyByCaseAreRefused() {
        let problems = ModelFixtures.problems([EntityDescription("Tag"), EntityDescription("TAG")])
        #expect(problems.count == 1)
        #expect(problems.first?.reason.contains("table names 'TAG' (the table of entity 'TAG') and 'Tag' (the table of entity 'Tag')") == true
                || problems.first?.reason.contains("table names 'Tag' (the table of entity 'Tag') and 'TAG' (the table of entity 'TAG')") == true)
        let post = EntityDescription("Post", relationships: [RelationshipDescription("tags", to: "Tag", toMany: true, inverse: "posts")])
        let tag = EntityDescription("Tag", relationships: [RelationshipDescription("posts", to: "Post", toMany: true, inverse: "tags")])
        let clash = EntityDescription("POST_TAGS")
        let joins = ModelFixtures.problems([post, tag, clash])
        #expect(joins.count == 1)
        #expect(joins.first?.reason.contains("'POST_TAGS' (the table of entity 'POST_TAGS')") == true)
        #expect(joins.first?.reason.contains("'Post_tags' (the join table of 'Post.tags')") == true)
        // Non-ASCII letters are distinct to SQLite, so they are allowed.
        let accents = EntityDescription("Café", attributes: [AttributeDescription("é", .string), AttributeDescription("É", .string)])
        #expect(ModelFixtures.problems([accents]).isEmpty)
    }

    @Test func aJSONModelWithACaseClashFailsValidationNotCreateTable() throws {
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Employee", "attributes": [{"name": "salary", "type": "integer64"}, {"name": "Salary", "type": "integer64"}]}]}"#
        let error = try #require(throws: StrataError.self) { try ManagedObjectModel(jsonData: Data(json.utf8)) }
        #expect(error.code == .invalidModel)
        #expect(error.description.contains("'salary' and 'Salary'"))
        #expect(!error.description.contains("duplicate column"))
    }
}
