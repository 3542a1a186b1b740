import Foundation

extension BatchUpdateRequest {
    /// Creates a batch update request for the entity of a ``ManagedObject`` subclass, the
    /// attributes named by key paths (``ManagedObject/propertyName(for:)``).
    ///
    /// ```swift
    /// let raise = try BatchUpdateRequest(
    ///     for: Employee.self, predicate: #Predicate { $0.rating > 4 },
    ///     propertiesToUpdate: [\Employee.salary: .function(.multiply, [.keyPath("salary"), 1.1])])
    /// ```
    /// - Parameters:
    ///   - type: the class; its ``ManagedObject/entityName`` names the entity.
    ///   - predicate: which records; nil for all.
    ///   - propertiesToUpdate: key path → new value, a constant or an expression over the
    ///     record.
    /// - Throws: `.unknownKey` naming a key path the class does not map.
    public convenience init<Root: ManagedObject>(
        for type: Root.Type, predicate: FetchPredicate? = nil, propertiesToUpdate: [PartialKeyPath<Root>: FetchExpression]
    ) throws {
        var named: [String: FetchExpression] = [:]
        for (keyPath, value) in propertiesToUpdate {
            named[try Root.requirePropertyName(for: keyPath, usedIn: "a batch update")] = value
        }
        self.init(entityName: Root.entityName, predicate: predicate, propertiesToUpdate: named)
    }

    /// Creates a batch update request that sets constant values, the attributes named by
    /// key paths.
    ///
    /// ```swift
    /// let request = try BatchUpdateRequest(for: Employee.self, propertiesToUpdate: [\Employee.salary: .integer(60_000)])
    /// ```
    /// - Throws: `.unknownKey` naming a key path the class does not map.
    @_disfavoredOverload
    public convenience init<Root: ManagedObject>(
        for type: Root.Type, predicate: FetchPredicate? = nil, propertiesToUpdate: [PartialKeyPath<Root>: PropertyValue]
    ) throws {
        try self.init(for: type, predicate: predicate, propertiesToUpdate: propertiesToUpdate.mapValues { .constant($0) })
    }
}

extension BatchDeleteRequest {
    /// Creates a batch delete request for the entity of a ``ManagedObject`` subclass.
    ///
    /// ```swift
    /// try context.executeBatch(BatchDeleteRequest(for: Project.self, predicate: #Predicate { $0.done }))
    /// ```
    public convenience init<Root: ManagedObject>(for type: Root.Type, predicate: FetchPredicate? = nil) {
        self.init(entityName: Root.entityName, predicate: predicate)
    }
}
