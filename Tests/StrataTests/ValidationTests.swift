import Foundation
import Testing
@testable import Strata

/// An item with a custom per-key rule and a multi-key insert rule.
final class ValidatedItem: ManagedObject {
    override func validateValue(_ value: inout PropertyValue, forKey key: String) throws {
        if key == "title", value == .string("forbidden") {
            throw StrataError(.validation, "the title 'forbidden' is not allowed")
        }
        if key == "code", case .string(let text) = value, text != text.uppercased() {
            value = .string(text.uppercased())  // coerces rather than rejects
        }
    }

    override func validateForInsert() throws {
        if try value(forKey: "quantity") == .integer(7), try value(forKey: "code") == .string("BAD") {
            throw StrataError(.validation, "quantity 7 cannot go with code BAD")
        }
    }
}

/// `Item` with every kind of constraint; `Tag` and `Owner` for to-many counts.
let validationModel: ManagedObjectModel = {
    let item = EntityDescription("Item", attributes: [
        AttributeDescription("title", .string, isOptional: false),
        AttributeDescription("quantity", .integer64, minValue: .integer(1), maxValue: .integer(10)),
        AttributeDescription("code", .string, minLength: 2, maxLength: 4),
        AttributeDescription("sku", .string, regularExpression: "[A-Z]{3}-[0-9]+"),
        AttributeDescription("due", .date, minValue: .date(Date(timeIntervalSince1970: 0))),
    ], relationships: [
        RelationshipDescription("tags", to: "Tag", toMany: true, inverse: "item", minCount: 2, maxCount: 3),
        RelationshipDescription("owners", to: "Owner", toMany: true, inverse: "items", isOptional: false, minCount: 1),
    ])
    let tag = EntityDescription("Tag", attributes: [AttributeDescription("label", .string)], relationships: [
        RelationshipDescription("item", to: "Item", inverse: "tags"),
    ])
    let owner = EntityDescription("Owner", attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("items", to: "Item", toMany: true, inverse: "owners"),
    ])
    let model = try! ManagedObjectModel(entities: [item, tag, owner])
    try! model.register(ValidatedItem.self, forEntityName: "Item")
    return model
}()

/// docs/SEMANTICS.md §5: validation at save collects every problem in one error.
@Suite struct Validation {
    /// A valid item (title, one owner, no tags).
    func validItem(_ context: ManagedObjectContext) throws -> ManagedObject {
        let item = try context.insertObject(forEntityName: "Item")
        try item.setValue(.string("Widget"), forKey: "title")
        let owner = try context.insertObject(forEntityName: "Owner")
        try item.mutableSetValue(forKey: "owners").add(owner)
        return item
    }

    func tags(_ count: Int, _ context: ManagedObjectContext) throws -> [ManagedObject] {
        try (0..<count).map { _ in try context.insertObject(forEntityName: "Tag") }
    }

    @Test func aValidGraphSaves() throws {
        let stack = Stack(model: validationModel)
        let item = try validItem(stack.context)
        try item.setValue(.integer(10), forKey: "quantity")
        try item.setValue(.string("ab"), forKey: "code")
        try item.setValue(.string("ABC-12"), forKey: "sku")
        try item.mutableSetValue(forKey: "tags").set(try tags(3, stack.context))
        try stack.context.save()
        #expect(try item.string("code") == "AB", "the custom validator's coerced value is kept")
    }

    @Test func everyProblemOfEveryObjectIsListedInOneError() throws {
        let stack = Stack(model: validationModel)
        let context = stack.context
        // First item: null title, quantity too small, code too short, bad sku, one tag, no owner.
        let first = try context.insertObject(forEntityName: "Item")
        try first.setValue(.integer(0), forKey: "quantity")
        try first.setValue(.string("A"), forKey: "code")
        try first.setValue(.string("abc-1"), forKey: "sku")
        try first.setValue(.date(Date(timeIntervalSince1970: -10)), forKey: "due")
        try first.mutableSetValue(forKey: "tags").set(try tags(1, context))
        // Second item: custom-rejected title, quantity too large, code too long, four tags.
        let second = try validItem(context)
        try second.setValue(.string("forbidden"), forKey: "title")
        try second.setValue(.integer(11), forKey: "quantity")
        try second.setValue(.string("TOOLONG"), forKey: "code")
        try second.mutableSetValue(forKey: "tags").set(try tags(4, context))
        // Third item: valid keys, but the multi-key insert rule rejects it.
        let third = try validItem(context)
        try third.setValue(.integer(7), forKey: "quantity")
        try third.setValue(.string("BAD"), forKey: "code")

        let error = try #require(strataError { try context.save() })
        #expect(error.code == .validation)
        func keys(_ object: ManagedObject) -> [String?] {
            error.problems.filter { $0.object == object.objectID.description }.map(\.key).sorted { ($0 ?? "") < ($1 ?? "") }
        }
        #expect(keys(first) == ["code", "due", "owners", "quantity", "sku", "tags", "title"])
        #expect(keys(second) == ["code", "quantity", "tags", "title"])
        #expect(keys(third) == [nil])
        #expect(error.problems.count == 12)
        #expect(error.problems.allSatisfy { $0.entityName == "Item" })

        func reason(_ object: ManagedObject, _ key: String?) -> String {
            error.problems.first { $0.object == object.objectID.description && $0.key == key }?.reason ?? ""
        }
        #expect(reason(first, "title").contains("required"))
        #expect(reason(first, "quantity").contains("less than the minimum"))
        #expect(reason(second, "quantity").contains("greater than the maximum"))
        #expect(reason(first, "code").contains("shorter"))
        #expect(reason(second, "code").contains("longer"))
        #expect(reason(first, "sku").contains("pattern"))
        #expect(reason(first, "tags").contains("fewer than the minimum 2"))
        #expect(reason(second, "tags").contains("more than the maximum 3"))
        #expect(reason(first, "owners").contains("required"))
        #expect(reason(second, "title").contains("forbidden"))
        #expect(reason(third, nil).contains("quantity 7 cannot go with code BAD"))
        // The description names every problem, one per line.
        #expect(error.description.split(separator: "\n").count == 1 + 12)
    }

    @Test func anEmptyOptionalToManyIgnoresItsMinimumCount() throws {
        let stack = Stack(model: validationModel)
        let item = try validItem(stack.context)
        #expect(try item.mutableSetValue(forKey: "tags").count == 0)
        try stack.context.save()
    }

    @Test func validateForUpdateRulesRunForUpdatedObjectsOnly() throws {
        let stack = Stack(model: validationModel)
        let item = try validItem(stack.context)
        try stack.context.save()
        // The insert rule does not apply to an update.
        try item.setValue(.integer(7), forKey: "quantity")
        try item.setValue(.string("BAD"), forKey: "code")
        try stack.context.save()
        // Constraints do.
        try item.setValue(.integer(99), forKey: "quantity")
        let error = strataError { try stack.context.save() }
        #expect(error?.problems.map(\.key) == ["quantity"])
    }

    @Test func validationRunsOnDemandWithoutChangingTheObject() throws {
        let stack = Stack(model: validationModel)
        let item = try validItem(stack.context)
        try item.setValue(.integer(5), forKey: "quantity")
        #expect(strataError { try item.validateValue(.integer(11), forKey: "quantity") }?.code == .validation)
        #expect(strataError { try item.validateValue(.string("forbidden"), forKey: "title") }?.problems.first?.key == "title")
        #expect(strataError { try item.validateValue(.null, forKey: "title") }?.code == .validation)
        #expect(throws: Never.self) { try item.validateValue(.integer(3), forKey: "quantity") }
        #expect(strataError { try item.validateValue(.integer(3), forKey: "nope") }?.code == .unknownKey)
        #expect(try item.int("quantity") == 5)
    }
}
