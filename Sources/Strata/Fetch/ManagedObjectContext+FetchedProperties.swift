import Foundation

extension ManagedObjectModel {
    /// A fetch request made from a named template, with its `$VARIABLES` substituted
    /// (Core Data's `fetchRequestFromTemplate(withName:substitutionVariables:)`).
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(
    ///     withName: "EmployeesEarningMoreThan", substitutionVariables: ["SALARY": 100_000])
    /// let rich = try context.fetch(request)
    /// ```
    /// - Throws: `.unknownKey` naming an unknown template (`context.template`);
    ///   `.predicateSyntax` when its predicate does not parse; `.predicateEvaluation` naming
    ///   a variable that has no value (`context.variable`).
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables variables: [String: PropertyValue]
    ) throws -> FetchRequest<ManagedObject> {
        guard let template = fetchRequestTemplatesByName[name] else {
            throw StrataError(.unknownKey, "The model has no fetch request template named \(input: name).",
                              context: .init { $0.template = name })
        }
        let predicate: FetchPredicate
        do {
            predicate = try FetchPredicate(format: template.predicateFormat).withSubstitutionVariables(variables)
        } catch var error as StrataError {
            error.context.template = name
            error.message = "Fetch request template \(input: name): \(error.message)"
            throw error
        }
        return FetchRequest(entityName: template.entityName, predicate: predicate)
    }
}

extension ManagedObject {
    /// The objects of a fetched property: its predicate evaluated with `$FETCH_SOURCE`
    /// bound to this object's ID and `$FETCHED_PROPERTY` to the property's name.
    ///
    /// ```swift
    /// let rich = try department.fetchedProperty("highEarners")
    /// ```
    ///
    /// Evaluated lazily, on first use, and then cached in the context: the array is not kept
    /// up to date as objects change, until the object is refreshed
    /// (``ManagedObjectContext/refresh(_:mergeChanges:)``) or the context reset.
    /// - Throws: `.unknownKey` naming an unknown fetched property; `.invalidObject` when the
    ///   object has no context; predicate and fetch errors.
    public func fetchedProperty(_ name: String) throws -> [ManagedObject] {
        let context = try requireContext()
        guard let property = entity.fetchedProperties.first(where: { $0.name == name }) else {
            throw StrataError(.unknownKey, "Entity '\(entity.name)' has no fetched property \(input: name).",
                              context: .init { $0.entity = entity.name; $0.key = name })
        }
        // The cache is keyed by object identity; the ID in the key guards against a dead
        // object's entry being read by a new object at the same address.
        let cacheKey = name + "\u{0}" + objectID.description
        if let cached = context.fetchedPropertyCache[ObjectIdentifier(self)]?[cacheKey] { return cached }
        let predicate: FetchPredicate
        do {
            predicate = try FetchPredicate(format: property.predicateFormat)
                .withSubstitutionVariables(["FETCH_SOURCE": .object(objectID), "FETCHED_PROPERTY": .string(name)])
        } catch var error as StrataError {
            error.context.entity = entity.name
            error.context.key = name
            error.message = "Fetched property \(entity.name).\(name): \(error.message)"
            throw error
        }
        let results = try context.fetch(FetchRequest(entityName: property.destinationEntityName, predicate: predicate))
        context.fetchedPropertyCache[ObjectIdentifier(self), default: [:]][cacheKey] = results
        return results
    }
}

extension ManagedObject {
    /// The objects of a fetched property as instances of their class: what the accessor
    /// `#FetchedProperty` writes calls.
    ///
    /// ```swift
    /// let rich: [Employee] = try department.fetchedProperty("highEarners", as: Employee.self)
    /// ```
    /// - Throws: as ``fetchedProperty(_:)``; `.typeMismatch` naming the object when one of
    ///   them is not a `T` (its entity's registered class is another).
    public func fetchedProperty<T: ManagedObject>(_ name: String, as type: T.Type) throws -> [T] {
        try fetchedProperty(name).map { object in
            guard let typed = object as? T else {
                throw StrataError(.typeMismatch, "Fetched property \(entity.name).\(name) holds \(object.objectID), \(withArticle("\(Swift.type(of: object))")), not \(withArticle("\(T.self)")).",
                                  context: .init { $0.entity = entity.name; $0.key = name; $0.object = object.objectID.description })
            }
            return typed
        }
    }
}
