import Foundation
import Strata
import StrataToolSupport

/// One `key=value`, `key+=@URI` or `key-=@URI` argument of `insert` and `update`.
struct Assignment {
    enum Operation { case set, add, remove }
    var key: String
    var operation: Operation
    var text: String

    /// Splits an argument at its first `=` (`+=`, `-=`).
    /// - Throws: `.invalidArgument` when there is no `=` or no key.
    init(_ argument: String) throws {
        guard let equals = argument.firstIndex(of: "=") else {
            throw StrataError(.invalidArgument, "\(input: argument) is not key=value.", context: .init { $0.value = argument })
        }
        var key = String(argument[..<equals])
        operation = .set
        if key.hasSuffix("+") { operation = .add; key.removeLast() }
        else if key.hasSuffix("-") { operation = .remove; key.removeLast() }
        guard !key.isEmpty else {
            throw StrataError(.invalidArgument, "\(input: argument) has no key before '='.", context: .init { $0.value = argument })
        }
        self.key = key
        text = String(argument[argument.index(after: equals)...])
    }

    /// Applies the assignment to an object, parsing the value by the property's type.
    /// - Throws: `.unknownKey` for a key the entity does not have, `.typeMismatch` for a
    ///   value of the wrong type, `.invalidObjectID`/`.objectNotFound` for a bad reference.
    func apply(to object: ManagedObject, in session: DocumentSession) throws {
        let entity = object.entity
        if let attribute = entity.attributesByName[key] {
            guard operation == .set else {
                throw StrataError(.typeMismatch, "\(entity.name).\(key) is an attribute; += and -= work on to-many relationships.",
                                  context: .init { $0.entity = entity.name; $0.key = key })
            }
            try object.setValue(try ToolValueText.parse(text, as: attribute.attributeType, key: key), forKey: key)
        } else if let relationship = entity.relationshipsByName[key] {
            try applyRelationship(relationship, to: object, in: session)
        } else {
            let names = ToolRecordText.storedProperties(of: entity).map(\.property.name).joined(separator: ", ")
            throw StrataError(.unknownKey, "Entity \(input: entity.name) has no property \(input: key) (properties: \(names)).",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
    }

    private func applyRelationship(_ relationship: RelationshipDescription, to object: ManagedObject, in session: DocumentSession) throws {
        let entity = object.entity
        let references = try parseReferences(in: session)
        switch (relationship.isToMany, operation) {
        case (false, .set):
            guard references.count <= 1 else {
                throw StrataError(.typeMismatch, "\(entity.name).\(key) is a to-one relationship; give one @URI or null.",
                                  context: .init { $0.entity = entity.name; $0.key = key })
            }
            try object.setValue(references.first.map { .object($0) } ?? .null, forKey: key)
        case (false, _):
            throw StrataError(.typeMismatch, "\(entity.name).\(key) is a to-one relationship; += and -= work on to-many relationships.",
                              context: .init { $0.entity = entity.name; $0.key = key })
        case (true, .set):
            try object.setValue(.objects(.init(references)), forKey: key)
        case (true, .add), (true, .remove):
            guard references.count == 1 else {
                throw StrataError(.invalidArgument, "\(key)\(operation == .add ? "+=" : "-=") takes exactly one @URI.",
                                  context: .init { $0.entity = entity.name; $0.key = key })
            }
            let members = try object.mutableSetValue(forKey: key)
            let member = session.context.object(with: references[0])
            if operation == .add { try members.add(member) } else { try members.remove(member) }
        }
    }

    /// `null` or empty: none; otherwise `@URI` items separated by commas.
    private func parseReferences(in session: DocumentSession) throws -> [ManagedObjectID] {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "null" || trimmed.isEmpty { return [] }
        return try trimmed.split(separator: ",").map { item in
            let reference = item.trimmingCharacters(in: .whitespaces)
            guard reference.hasPrefix("@"), reference.count > 1 else {
                throw StrataError(.typeMismatch, "\(input: reference) is not a reference for relationship \(key): write @URI (or @Entity/pKEY).",
                                  context: .init { $0.key = key; $0.value = reference })
            }
            return try session.objectID(String(reference.dropFirst()))
        }
    }
}
