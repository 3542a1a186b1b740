import Foundation

/// A fetch request checked against a model: its entity, its store request and its key
/// paths split into components.
struct ResolvedFetchRequest {
    let request: FetchRequest<ManagedObject>
    let entity: EntityDescription
    /// The store request with the request's window.
    let storeRequest: StoreFetchRequest
    /// The dictionary key paths (the request's, or every persistent attribute and to-one).
    let properties: [String]
    /// The prefetching key paths, split.
    let prefetchPaths: [[String]]
    /// Whether the predicate or the order reads other objects than the fetched one, so
    /// pending changes to those objects can change which records match or their order.
    let readsRelatedObjects: Bool
}

extension FetchRequest {
    /// The most sort descriptors, fetched properties or grouping properties a request may
    /// have: half of SQLite's 2,000-column limit on a result set and an ORDER BY, leaving
    /// room for the columns a fetch adds (keys, entity, sort values).
    static var maxListLength: Int { 1000 }

    /// Checks the request against the model.
    /// - Throws: the error translating the Swift predicate or sort descriptors it was made
    ///   with; `.unknownKey` for an unknown entity or a key path that does not exist
    ///   (naming the entity, the key path and where it is used); `.invalidArgument` for a
    ///   negative limit, offset or batch size, or a key path of the wrong kind;
    ///   `.predicateEvaluation` for a predicate beyond ``StrataLimits/current``.
    func resolve(in model: ManagedObjectModel) throws -> ResolvedFetchRequest {
        if let error = predicateTranslationError ?? sortTranslationError { throw error }
        let entityName = fetchedEntityName(in: model)
        guard let entity = model.entitiesByName[entityName] else {
            throw StrataError(.unknownKey, "The fetch request names the entity '\(entityName)', which is not in the model.",
                              context: .init { $0.entity = entityName })
        }
        for (name, value) in [("fetchLimit", fetchLimit), ("fetchOffset", fetchOffset), ("fetchBatchSize", fetchBatchSize)] where value < 0 {
            throw StrataError(.invalidArgument, "The fetch request's \(name) is \(value); it must not be negative.",
                              context: .init { $0.entity = entityName; $0.key = name })
        }
        // SQLite holds at most 2,000 columns in a result set and terms in an ORDER BY or
        // GROUP BY; a request beyond is refused here, naming the list, not by the engine.
        for (list, count) in [("sortDescriptors", sortDescriptors.count), ("propertiesToFetch", propertiesToFetch?.count ?? 0),
                              ("propertiesToGroupBy", propertiesToGroupBy?.count ?? 0)] where count > Self.maxListLength {
            throw StrataError(.invalidArgument, "The fetch request's \(list) has \(count) entries; at most \(Self.maxListLength) are allowed.",
                              context: .init { $0.entity = entityName; $0.key = list })
        }
        // A computed fetch may sort by the name of what it fetches (`total`).
        let fetchedNames = isComputedFetch ? Set((propertiesToFetch ?? []).map(\.name)) : []
        for descriptor in sortDescriptors where !fetchedNames.contains(descriptor.keyPath) {
            try Self.checkValuePath(descriptor.keyPath, from: entity, usedIn: "sort descriptor")
        }
        try checkGrouping(of: entity)
        let properties: [String]
        if let propertiesToFetch {
            for case .key(let path) in propertiesToFetch {
                try Self.checkValuePath(path, from: entity, usedIn: "propertiesToFetch")
            }
            properties = propertiesToFetch.map(\.name)
        } else {
            properties = entity.attributes.filter { !$0.isTransient }.map(\.name)
                + entity.relationships.filter { !$0.isToMany && !$0.isTransient }.map(\.name)
        }
        var prefetch: [[String]] = []
        for path in relationshipKeyPathsForPrefetching {
            prefetch.append(try Self.checkRelationshipPath(path, from: entity))
        }
        // Before anything walks the predicate (recursively, like the evaluator): a tree
        // built in code meets the limits a parsed one did (docs/LIMITS.md).
        try predicate?.checkLimits(.current)
        let storeRequest = StoreFetchRequest(
            entity: entity, includesSubentities: includesSubentities, predicate: predicate,
            sortDescriptors: sortDescriptors, fetchLimit: fetchLimit, fetchOffset: fetchOffset)
        let readsRelated = (predicate?.readsRelatedObjects ?? false) || sortDescriptors.contains { $0.keyPath.contains(".") }
        let request = untyped
        request.entityName = entityName
        return ResolvedFetchRequest(
            request: request, entity: entity, storeRequest: storeRequest, properties: properties,
            prefetchPaths: prefetch, readsRelatedObjects: readsRelated)
    }

    /// The entity the request fetches: its ``entityName`` when the model has that entity;
    /// for a request typed with a class and naming the class's default entity
    /// (``ManagedObject/entityName``) the model lacks, the entity the model registers the
    /// class for (`model.register(Employee.self, forEntityName: "Person")`), as Core Data
    /// finds an entity by its class.
    func fetchedEntityName(in model: ManagedObjectModel) -> String {
        guard model.entitiesByName[entityName] == nil,
              let type = ResultType.self as? ManagedObject.Type, type != ManagedObject.self,
              entityName == type.entityName,
              let registered = model.entityName(for: type)
        else { return entityName }
        return registered
    }

    /// A key path through to-one relationships ending at an attribute or a to-one.
    static func checkValuePath(_ path: String, from entity: EntityDescription, usedIn role: String) throws {
        let keys = entity.joiningCompositeKeys(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        var current = entity
        for (position, key) in keys.enumerated() {
            guard let slot = current.slot(forKey: key) else {
                throw unknown(key, of: current, path: path, role: role)
            }
            let isLast = position == keys.count - 1
            switch current.slotKinds[slot] {
            case .attribute:
                if !isLast {
                    throw StrataError(.invalidArgument, "The \(role) key path \(input: path) continues after the attribute '\(current.name).\(key)'.",
                                      context: .init { $0.entity = current.name; $0.key = path })
                }
            case .relationship(let index):
                let relationship = current.relationships[index]
                if relationship.isToMany {
                    throw StrataError(.invalidArgument, "The \(role) key path \(input: path) goes through the to-many '\(current.name).\(key)'; only attributes and to-ones can be used here.",
                                      context: .init { $0.entity = current.name; $0.key = path })
                }
                current = current.destination(of: relationship)
            }
        }
    }

    /// A key path of relationships (to-one or to-many), split into its names.
    private static func checkRelationshipPath(_ path: String, from entity: EntityDescription) throws -> [String] {
        let keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var current = entity
        for key in keys {
            guard let relationship = current.relationshipsByName[key] else {
                if current.slot(forKey: key) != nil {
                    throw StrataError(.invalidArgument, "The prefetching key path \(input: path) names the attribute '\(current.name).\(key)'; only relationships can be prefetched.",
                                      context: .init { $0.entity = current.name; $0.key = path })
                }
                throw unknown(key, of: current, path: path, role: "prefetching key path")
            }
            current = current.destination(of: relationship)
        }
        return keys
    }

    private static func unknown(_ key: String, of entity: EntityDescription, path: String, role: String) -> StrataError {
        StrataError(.unknownKey, "The \(role) \(input: path) names \(input: key), which is not a property of entity '\(entity.name)'.",
                    context: .init { $0.entity = entity.name; $0.key = path })
    }
}

extension FetchPredicate {
    /// Whether evaluating the predicate reads other objects than the evaluated one (a key
    /// path through a relationship, a collection operator, a subquery).
    var readsRelatedObjects: Bool {
        switch self {
        case .constant: return false
        case .comparison(let comparison): return comparison.lhs.readsRelatedObjects || comparison.rhs.readsRelatedObjects
        case .and(let terms), .or(let terms): return terms.contains(where: \.readsRelatedObjects)
        case .not(let inner): return inner.readsRelatedObjects
        }
    }
}

extension FetchExpression {
    var readsRelatedObjects: Bool {
        switch self {
        case .constant, .evaluatedObject, .variable: return false
        case .collection(let elements): return elements.contains(where: \.readsRelatedObjects)
        case .keyPath(let path, let base):
            if case .evaluatedObject = base { return path.contains(".") }
            return true
        case .collectionOperator, .subquery: return true
        case .function(_, let arguments): return arguments.contains(where: \.readsRelatedObjects)
        case .conditional(let condition, let then, let otherwise):
            return condition.readsRelatedObjects || then.readsRelatedObjects || otherwise.readsRelatedObjects
        case .index(let base, let index):
            if case .at(let key) = index, key.readsRelatedObjects { return true }
            return base.readsRelatedObjects
        }
    }
}
