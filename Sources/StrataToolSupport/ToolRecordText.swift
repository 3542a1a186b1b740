import Foundation
import Strata

/// One stored property of an entity, as the tools list it: an attribute or a relationship.
package enum ToolProperty: Sendable {
    /// An attribute.
    case attribute(AttributeDescription)
    /// A relationship.
    case relationship(RelationshipDescription)

    /// The property's name.
    package var name: String {
        switch self {
        case .attribute(let attribute): return attribute.name
        case .relationship(let relationship): return relationship.name
        }
    }
}

/// Records as the tools show them: the JSON object shape of `strata get`, `fetch` and
/// `export`, and short references.
///
/// A record is `{"_uri": URI, "_entity": NAME, <property>: <value>, ...}` with the
/// persistent properties in model (slot) order: attribute values as ``ToolValueText/json(_:)``
/// writes them, a to-one as its URI or `null`, a to-many as an array of URIs.
package enum ToolRecordText {
    /// The persistent (non-transient) properties of an entity with their slots, in model order.
    /// Computed once per entity: a fetch or an export asks for every record it writes.
    package static func storedProperties(of entity: EntityDescription) -> [(slot: Int, property: ToolProperty)] {
        layoutLock.lock()
        defer { layoutLock.unlock() }
        // The entry holds its entity, so the identifier cannot be reused by another one.
        if let cached = layouts[ObjectIdentifier(entity)], cached.entity === entity { return cached.properties }
        let properties = computeStoredProperties(of: entity)
        layouts[ObjectIdentifier(entity)] = (entity, properties)
        return properties
    }

    private static let layoutLock = NSLock()
    /// Guarded by ``layoutLock``.
    nonisolated(unsafe) private static var layouts: [ObjectIdentifier: (entity: EntityDescription, properties: [(slot: Int, property: ToolProperty)])] = [:]

    private static func computeStoredProperties(of entity: EntityDescription) -> [(slot: Int, property: ToolProperty)] {
        var result: [(Int, ToolProperty)] = []
        for (slot, name) in entity.slotNames.enumerated() {
            if let attribute = entity.attributesByName[name] {
                if !attribute.isTransient { result.append((slot, .attribute(attribute))) }
            } else if let relationship = entity.relationshipsByName[name], !relationship.isTransient {
                result.append((slot, .relationship(relationship)))
            }
        }
        return result
    }

    /// The JSON object of a record whose values (by slot) are `values`.
    package static func json(id: ManagedObjectID, values: [PropertyValue]) -> JSONValue {
        var members = [JSONValue.Member("_uri", .string(id.description)), JSONValue.Member("_entity", .string(id.entity.name))]
        for (slot, property) in storedProperties(of: id.entity) {
            let value = slot < values.count ? values[slot] : .null
            if case .attribute(let attribute) = property, attribute.compositeName != nil {
                appendCompositeElement(attribute.name.split(separator: ".").map(String.init)[...], ToolValueText.json(value), to: &members)
                continue
            }
            if case .relationship(let relationship) = property, relationship.isToMany, value.isNull {
                members.append(JSONValue.Member(property.name, .array([])))
            } else {
                members.append(JSONValue.Member(property.name, ToolValueText.json(value)))
            }
        }
        return .object(members)
    }

    /// A composite attribute is one nested object of its elements (`"address": {"city":
    /// …}`), a nested composite one more level (`"geo": {"lat": …}`); its elements have
    /// consecutive slots, so they join the member just written. `path`: the element's
    /// stored key split at the dots.
    private static func appendCompositeElement(_ path: ArraySlice<String>, _ value: JSONValue, to members: inout [JSONValue.Member]) {
        guard let head = path.first else { return }
        guard path.count > 1 else {
            members.append(JSONValue.Member(head, value))
            return
        }
        if let last = members.indices.last, members[last].key == head, case .object(var nested) = members[last].value {
            appendCompositeElement(path.dropFirst(), value, to: &nested)
            members[last].value = .object(nested)
        } else {
            var nested: [JSONValue.Member] = []
            appendCompositeElement(path.dropFirst(), value, to: &nested)
            members.append(JSONValue.Member(head, .object(nested)))
        }
    }

    /// `Employee/p3`: the entity and key, for tables and logs (the `strata` commands
    /// accept it wherever a URI is expected).
    package static func shortReference(_ id: ManagedObjectID) -> String { id.shortReference }

    /// Resolves a full object URI or a short `Entity/pKEY` reference against a document
    /// store (the record must exist).
    /// - Throws: `.invalidObjectID` when the text is not a reference of this document (with
    ///   the nearest entity name when the entity is mistyped), `.objectNotFound` when no such
    ///   record exists (with the entity's keys nearest to the one given).
    package static func resolve(_ text: String, in store: DocumentStore, coordinator: PersistentStoreCoordinator) throws -> ManagedObjectID {
        var uriText = text
        if !text.hasPrefix("x-strata:") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw StrataError(.invalidObjectID, "\(input: text) is not an object URI (x-strata://STORE/Entity/pKEY) or a reference Entity/pKEY.",
                                  context: .init { $0.object = text })
            }
            let names = store.model.entities.map(\.name)
            guard names.contains(String(parts[0])) else {
                throw StrataError(.invalidObjectID, "\(input: text) names no entity of the model.\(ToolSuggestions.clause(for: String(parts[0]), among: names)) (entities: \(names.joined(separator: ", "))).",
                                  context: .init { $0.entity = String(parts[0]); $0.object = text })
            }
            uriText = "x-strata://\(store.identifier)/\(text)"
        }
        guard let uri = URL(string: uriText) else {
            throw StrataError(.invalidObjectID, "\(input: text) is not an object URI.", context: .init { $0.object = text })
        }
        let id = try coordinator.managedObjectID(forURIRepresentation: uri)
        guard try store.values(for: id) != nil else {
            let nearby = ToolSuggestions.nearbyKeys(to: id.primaryKey, of: id.entity, in: store)
            let offer = nearby.isEmpty ? " (\(id.entity.name) has no records)."
                : ". Did you mean \(nearby.map { "\(id.entity.name)/p\($0)" }.joined(separator: ", "))?"
            throw StrataError(.objectNotFound, "There is no object \(text) in the document\(offer)", context: .init { $0.object = text })
        }
        return id
    }
}
