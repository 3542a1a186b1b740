import Foundation

extension AttributeDescription {
    /// The `userInfo` key that makes a string attribute of an Xcode model a text
    /// (``isText``), with the value `YES` (or `true`, `1`).
    public static let textUserInfoKey = "strata.text"

    /// The `userInfo` values, lowercased, that turn ``textUserInfoKey`` on.
    static let textFlags: Set<String> = ["yes", "true", "1"]
}

extension ManagedObjectModel {
    /// Whether any entity has a text attribute.
    var hasTexts: Bool { entities.contains { !$0.textSlots.isEmpty } }
}

extension EntityDescription {
    /// Whether `slot` holds a text attribute.
    @inline(__always)
    func isText(slot: Int) -> Bool {
        !textSlots.isEmpty && textSlots.contains(slot)
    }
}

/// Checks text attributes when a model is built: a text is a stored, non-derived string.
enum TextAttributeCheck {
    /// The problems, each naming entity and attribute.
    static func problems(in entities: [EntityDescription]) -> [StrataError.Problem] {
        var problems: [StrataError.Problem] = []
        for entity in entities {
            for attribute in entity.declaredAttributes where attribute.isText {
                func problem(_ reason: String) {
                    problems.append(.init(entityName: entity.name, object: nil, key: attribute.name, reason: reason))
                }
                if attribute.attributeType != .string {
                    problem("only a string attribute can be a text; this one is \(attribute.attributeType.rawValue)")
                }
                if attribute.isTransient { problem("a text is stored; it cannot be transient") }
                if attribute.derivation != nil { problem("a text is edited; it cannot be derived") }
            }
        }
        return problems
    }
}

extension PropertyValue {
    /// A text attribute's string: the string, or empty for NULL.
    var textValue: String {
        if case .string(let value) = self { return value }
        return ""
    }
}
