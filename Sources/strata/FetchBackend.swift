import Foundation
import Strata

/// What `strata fetch` asks for.
struct FetchSpecification {
    var entity: EntityDescription
    var predicate: FetchPredicate?
    var sortDescriptors: [FetchSortDescriptor]
    var limit: Int
    var offset: Int
}

/// Runs a fetch for the CLI.
///
/// TEMPORARY: the library's `FetchRequest` and `ManagedObjectContext.fetch(_:)` are not on
/// main yet. Until they are, this evaluates the predicate in memory over every record of
/// the entity (and its sub-entities), sorts, then applies offset and limit. Once
/// `FetchRequest` lands, `objects(_:in:)` and `count(_:in:)` become
/// `context.fetch(request)` and `context.count(for: request)`.
enum FetchBackend {
    static func objects(_ specification: FetchSpecification, in session: DocumentSession) throws -> [ManagedObject] {
        try objects(specification, store: session.store, context: session.context)
    }

    static func objects(_ specification: FetchSpecification, store: DocumentStore, context: ManagedObjectContext) throws -> [ManagedObject] {
        let matching = try matches(specification, store: store, context: context)
        let sorted = try sort(matching, by: specification.sortDescriptors)
        let window = sorted.dropFirst(min(specification.offset, sorted.count))
        return Array(specification.limit > 0 ? window.prefix(specification.limit) : window)
    }

    static func count(_ specification: FetchSpecification, in session: DocumentSession) throws -> Int {
        var unwindowed = specification
        unwindowed.sortDescriptors = []
        let all = try matches(unwindowed, store: session.store, context: session.context)
        let afterOffset = max(0, all.count - specification.offset)
        return specification.limit > 0 ? min(afterOffset, specification.limit) : afterOffset
    }

    private static func matches(_ specification: FetchSpecification, store: DocumentStore, context: ManagedObjectContext) throws -> [ManagedObject] {
        let ids = try store.objectIDs(for: specification.entity, includingSubentities: true)
        var result: [ManagedObject] = []
        for id in ids {
            let object = try context.existingObject(with: id)
            if let predicate = specification.predicate, try !predicate.evaluate(with: ObjectSubject(object: object)) { continue }
            result.append(object)
        }
        return result
    }

    private static func sort(_ objects: [ManagedObject], by descriptors: [FetchSortDescriptor]) throws -> [ManagedObject] {
        guard !descriptors.isEmpty else { return objects }
        let keyed = try objects.map { object in
            (object, try descriptors.map { try object.value(forKeyPath: $0.keyPath).value ?? .null })
        }
        return keyed.sorted { lhs, rhs in
            for (index, descriptor) in descriptors.enumerated() {
                let order = compare(lhs.1[index], rhs.1[index], descriptor.comparison)
                if order != .orderedSame { return descriptor.ascending ? order == .orderedAscending : order == .orderedDescending }
            }
            return lhs.0.objectID < rhs.0.objectID
        }.map(\.0)
    }

    /// NULL first, then by value.
    static func compare(_ lhs: PropertyValue, _ rhs: PropertyValue, _ comparison: FetchSortDescriptor.Comparison) -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(var a), .string(var b)):
            if comparison != .binary {
                let options: String.CompareOptions = comparison == .localized ? [.caseInsensitive, .diacriticInsensitive] : [.caseInsensitive]
                a = a.folding(options: options, locale: nil)
                b = b.folding(options: options, locale: nil)
            }
            return a == b ? .orderedSame : (Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? .orderedAscending : .orderedDescending)
        case (.date(let a), .date(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.decimal(let a), .decimal(let b)): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        default:
            if let a = lhs.numericValue, let b = rhs.numericValue {
                return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
            }
            let a = lhs.description, b = rhs.description
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        }
    }
}

/// A managed object seen by the predicate evaluator (until the library's objects are
/// predicate subjects themselves).
private struct ObjectSubject: PredicateSubject {
    let object: ManagedObject

    func predicateValue(forKey key: String) throws -> PredicateResolved {
        let entity = object.entity
        if let relationship = entity.relationshipsByName[key] {
            if relationship.isToMany {
                return .objects(try object.objects(forKey: key).map { ObjectSubject(object: $0) })
            }
            return .object(try object.object(forKey: key).map { ObjectSubject(object: $0) })
        }
        guard entity.attributesByName[key] != nil else {
            throw StrataError(.unknownKey, "Entity '\(entity.name)' has no property '\(key)'.", context: ["entity": entity.name, "key": key])
        }
        return .value(try object.value(forKey: key))
    }

    var predicateObjectID: ManagedObjectID? { object.objectID }
}
