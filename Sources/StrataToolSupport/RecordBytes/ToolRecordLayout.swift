import Foundation
import Strata

/// The members of an entity's records as ``ToolRecordText/json(id:values:)`` lays them
/// out, without their values: `_uri`, `_entity`, then the stored properties in model
/// order, a composite attribute's elements nested under its name. It is the same for
/// every record of the entity, so ``ToolRecordWriter`` compiles it once into what it
/// writes per record.
package struct ToolRecordLayout: Sendable {
    /// What a member holds.
    package indirect enum Node: Sendable {
        /// The record's URI.
        case uri
        /// The entity's name.
        case entityName(String)
        /// The value in a slot; a to-many with no value is written as an empty array.
        case value(slot: Int, isToMany: Bool)
        /// A composite attribute's elements (or a nested composite's).
        case object([Member])
    }

    /// One key of the record (or of a composite) and what it holds.
    package struct Member: Sendable {
        /// The key.
        package var key: String
        /// What it holds.
        package var node: Node
    }

    /// The record's members, in order.
    package let members: [Member]

    /// The layout of `entity`'s records.
    package init(entity: EntityDescription) {
        var members = [Member(key: "_uri", node: .uri), Member(key: "_entity", node: .entityName(entity.name))]
        for (slot, property) in ToolRecordText.storedProperties(of: entity) {
            switch property {
            case .attribute(let attribute) where attribute.compositeName != nil:
                Self.appendCompositeElement(attribute.name.split(separator: ".").map(String.init)[...], slot: slot, to: &members)
            case .attribute(let attribute):
                members.append(Member(key: attribute.name, node: .value(slot: slot, isToMany: false)))
            case .relationship(let relationship):
                members.append(Member(key: relationship.name, node: .value(slot: slot, isToMany: relationship.isToMany)))
            }
        }
        self.members = members
    }

    /// As ``ToolRecordText``'s composite elements: nested under each name of the stored
    /// key's path, joining the member just written when it is that name's object.
    private static func appendCompositeElement(_ path: ArraySlice<String>, slot: Int, to members: inout [Member]) {
        guard let head = path.first else { return }
        guard path.count > 1 else {
            members.append(Member(key: head, node: .value(slot: slot, isToMany: false)))
            return
        }
        if let last = members.indices.last, members[last].key == head, case .object(var nested) = members[last].node {
            appendCompositeElement(path.dropFirst(), slot: slot, to: &nested)
            members[last].node = .object(nested)
        } else {
            var nested: [Member] = []
            appendCompositeElement(path.dropFirst(), slot: slot, to: &nested)
            members.append(Member(key: head, node: .object(nested)))
        }
    }

    /// The record's keys, in order: the columns a CSV of its entity has.
    package var keys: [String] { members.map(\.key) }
}
