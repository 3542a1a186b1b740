import Foundation

/// The typed forms of ``ManagedObjectContext/object(with:)`` and
/// ``ManagedObjectContext/existingObject(with:)``: the object as an instance of the class the
/// caller expects, or an error naming the object when its entity's class is another.
extension ManagedObjectContext {
    /// The object for an ID as an instance of a class: the registered one, or a new fault
    /// (the record is not checked).
    ///
    /// ```swift
    /// let employee = try context.object(with: id, as: Employee.self)
    /// ```
    /// - Throws: `.typeMismatch` naming the object and its class when the ID's entity's
    ///   objects are not `T`s; nothing is registered then.
    public func object<T: ManagedObject>(with objectID: ManagedObjectID, as type: T.Type) throws -> T {
        try checkClass(of: objectID, is: T.self)
        return try Self.typed(object(with: objectID), as: T.self)
    }

    /// The object for an ID as an instance of a class, loaded, or an error when the record
    /// does not exist.
    ///
    /// ```swift
    /// let employee = try context.existingObject(with: id, as: Employee.self)
    /// ```
    /// - Throws: `.typeMismatch` as ``object(with:as:)``; `.objectNotFound`.
    public func existingObject<T: ManagedObject>(with objectID: ManagedObjectID, as type: T.Type) throws -> T {
        try checkClass(of: objectID, is: T.self)
        return try Self.typed(existingObject(with: objectID), as: T.self)
    }

    /// Refuses an ID whose entity's class is not `T` before any object is made for it.
    private func checkClass<T: ManagedObject>(of objectID: ManagedObjectID, is type: T.Type) throws {
        let objectClass = model.objectClass(forEntity: objectID.entity)
        guard objectClass is T.Type else {
            throw StrataError(.typeMismatch, "\(objectID.entity.name) \(objectID) is \(withArticle(objectClass)), not \(withArticle(T.self)).",
                              context: .init { $0.entity = objectID.entity.name; $0.object = objectID.description })
        }
    }
}
