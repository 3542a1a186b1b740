import Foundation
import Testing
@testable import Strata

@Suite struct ModelValidation {
    @Test func anUnknownDestinationIsReportedOnceForTheDeclaringEntity() {
        let base = EntityDescription("Base", relationships: [RelationshipDescription("link", to: "Nowhere")])
        let child = EntityDescription("Child", parent: "Base")
        let grandchild = EntityDescription("Grandchild", parent: "Child")
        let problems = ModelFixtures.problems([base, child, grandchild])
        #expect(problems.count == 1)
        #expect(problems.first?.entityName == "Base")
        #expect(problems.first?.key == "link")
        #expect(problems.first?.reason.contains("'Nowhere' is not in the model") == true)
    }

    @Test func anInverseThatNamesAnotherRelationshipIsAMismatch() {
        let department = EntityDescription("Department", relationships: [
            RelationshipDescription("employees", to: "Employee", toMany: true, inverse: "department"),
            RelationshipDescription("alumni", to: "Employee", toMany: true, inverse: "department"),
        ])
        let employee = EntityDescription("Employee", relationships: [
            RelationshipDescription("department", to: "Department", inverse: "employees"),
        ])
        let problems = ModelFixtures.problems([department, employee])
        #expect(problems.map(\.key) == ["alumni"])
        #expect(problems.first?.reason.contains("names 'employees' as its inverse") == true)
    }

    @Test func aToOneInverseMustNameItsPartnerBack() {
        let employee = EntityDescription("Employee", relationships: [
            RelationshipDescription("department", to: "Department", inverse: "employees"),
        ])
        let department = EntityDescription("Department", relationships: [
            RelationshipDescription("employees", to: "Employee", toMany: true),
        ])
        let problems = ModelFixtures.problems([employee, department])
        #expect(problems.count == 1)
        #expect(problems.first?.entityName == "Employee")
        #expect(problems.first?.reason.contains("has no inverse; it must name 'department'") == true)
        let wrongEntity = EntityDescription("Office", relationships: [
            RelationshipDescription("tenant", to: "Team", inverse: "office"),
        ])
        let team = EntityDescription("Team", relationships: [RelationshipDescription("office", to: "Team", inverse: "tenant")])
        let crossed = ModelFixtures.problems([wrongEntity, team])
        #expect(crossed.contains { $0.entityName == "Office" && $0.reason.contains("points at 'Team', not 'Office'") })
    }

    @Test func anInverseThatIsNotARelationshipIsReported() {
        let a = EntityDescription("A", attributes: [AttributeDescription("label", .string)],
                                  relationships: [RelationshipDescription("me", to: "A", inverse: "label")])
        #expect(ModelFixtures.problems([a]).first?.reason.contains("'label' is not a relationship of 'A'") == true)
    }

    @Test func reservedPropertyNamesAreRefused() {
        let entity = EntityDescription("Item", attributes: [
            AttributeDescription("description", .string), AttributeDescription("objectID", .string),
            AttributeDescription("title", .string),
        ], relationships: [RelationshipDescription("entity", to: "Item")])
        let problems = ModelFixtures.problems([entity])
        #expect(problems.map(\.key) == ["description", "objectID", "entity"])
        #expect(problems.allSatisfy { $0.reason.contains("reserved") })
    }

    @Test func aParentCycleIsReportedForEveryEntityInIt() {
        let a = EntityDescription("A", parent: "C")
        let b = EntityDescription("B", parent: "A")
        let c = EntityDescription("C", parent: "B")
        let d = EntityDescription("D")
        let problems = ModelFixtures.problems([a, b, c, d])
        #expect(problems.map(\.entityName) == ["A", "B", "C"])
        #expect(problems.allSatisfy { $0.reason == "the entity inherits from itself" })
        #expect(ModelFixtures.problems([EntityDescription("Orphan", parent: "Ghost")]).first?.reason
            .contains("parent entity 'Ghost'") == true)
    }

    @Test func entitiesRefusedForAParentCycleAreFreed() {
        weak var first: EntityDescription?
        do {
            let a = EntityDescription("A", parent: "B")
            let b = EntityDescription("B", parent: "A")
            first = a
            #expect(ModelFixtures.problems([a, b]).count == 2)
        }
        #expect(first == nil, "the refused entities still hold each other as sub-entities")
    }

    @Test func aDefaultOfTheWrongTypeIsRefused() {
        let entity = EntityDescription("Item", attributes: [
            AttributeDescription("count", .integer16, defaultValue: "three"),
            AttributeDescription("small", .integer16, defaultValue: 70_000),
            AttributeDescription("flag", .boolean, defaultValue: 2),
            AttributeDescription("fine", .double, defaultValue: 3),
        ])
        let problems = ModelFixtures.problems([entity])
        #expect(problems.map(\.key) == ["count", "small", "flag"])
        #expect(problems.first?.reason.contains("is not an integer16") == true)
    }

    @Test func aRegularExpressionThatDoesNotCompileIsRefused() {
        let entity = EntityDescription("Item", attributes: [
            AttributeDescription("code", .string, regularExpression: "[A-Z"),
            AttributeDescription("zip", .string, defaultValue: "ABCDE", regularExpression: "[0-9]{5}"),
            AttributeDescription("good", .string, defaultValue: "ab", regularExpression: "a|ab"),
            AttributeDescription("number", .integer32, regularExpression: "[0-9]+"),
        ])
        let problems = ModelFixtures.problems([entity])
        #expect(problems.map(\.key) == ["code", "zip", "number"])
        #expect(problems[0].reason.contains("does not compile"))
        #expect(problems[1].reason.contains("does not match the regular expression"))
        #expect(problems[2].reason.contains("applies to string attributes"))
    }

    @Test func aDefaultMustSatisfyItsOwnBounds() {
        let entity = EntityDescription("Item", attributes: [
            AttributeDescription("low", .integer64, defaultValue: -1, minValue: 0),
            AttributeDescription("high", .decimal, defaultValue: .decimal(Decimal(string: "10.5")!), maxValue: .decimal(10)),
            AttributeDescription("early", .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 0)),
                                 minValue: .date(Date(timeIntervalSinceReferenceDate: 1))),
            AttributeDescription("short", .string, defaultValue: "ab", minLength: 3),
            AttributeDescription("long", .binaryData, defaultValue: .data(Data(count: 5)), maxLength: 4),
            AttributeDescription("inverted", .double, minValue: 5, maxValue: 1),
            AttributeDescription("misplaced", .string, minValue: 1),
            AttributeDescription("lengthOnNumber", .integer16, maxLength: 3),
            AttributeDescription("inside", .float, defaultValue: 0.5, minValue: 0, maxValue: 1),
        ])
        let problems = ModelFixtures.problems([entity])
        #expect(problems.map(\.key) == ["low", "high", "early", "short", "long", "inverted", "misplaced", "lengthOnNumber"])
        #expect(problems[0].reason.contains("below minValue"))
        #expect(problems[1].reason.contains("above maxValue"))
        #expect(problems[3].reason.contains("shorter than minLength 3"))
        #expect(problems[5].reason.contains("minValue 5.0 is larger than maxValue 1.0"))
    }

    @Test func everyProblemIsListedInOneError() throws {
        let a = EntityDescription("A", attributes: [AttributeDescription("hash", .string)],
                                  relationships: [RelationshipDescription("x", to: "Missing")],
                                  uniquenessConstraints: [["nope"]])
        let error = try #require(throws: StrataError.self) {
            try ManagedObjectModel(entities: [a], configurations: ["Main": ["Ghost"]],
                                   fetchRequestTemplates: [FetchRequestTemplate(name: "t", entity: "Ghost", predicate: "TRUEPREDICATE")])
        }
        #expect(error.code == .invalidModel)
        #expect(error.problems.count == 5)
        #expect(error.message.contains("5 problems"))
        #expect(error.description.split(separator: "\n").count == 6)
    }

    @Test func fixtureModelsRaiseNoProblems() throws {
        for name in ModelFixtures.xcodeFixtureNames {
            #expect(throws: Never.self) { try ModelFixtures.xcodeModel(name) }
        }
        #expect(throws: Never.self) { try ModelFixtures.employeeModel() }
    }
}
