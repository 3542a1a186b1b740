import Foundation

extension ManagedObject {
    /// The name a table gives a key path: the lookup an override of
    /// ``propertyName(for:)`` ends with.
    ///
    /// - Parameters:
    ///   - keyPath: the key path asked about, of any root.
    ///   - names: the class's key paths (rooted at `Self`, so that subclasses find them)
    ///     and the model properties they read.
    /// - Returns: the name, or nil when the key path is not in the table.
    public static func propertyName<Root>(for keyPath: AnyKeyPath, in names: [PartialKeyPath<Root>: String]) -> String? {
        (keyPath as? PartialKeyPath<Root>).flatMap { names[$0] }
    }

    /// A table's key paths and names as a list: what an override of
    /// ``propertyKeyPaths()`` or ``optionalPropertyKeyPaths()`` returns.
    public static func propertyKeyPaths<Root>(in names: [PartialKeyPath<Root>: String]) -> [(keyPath: AnyKeyPath, name: String)] {
        names.map { ($0.key as AnyKeyPath, $0.value) }
    }

    /// The model property a key path from this class reads.
    /// - Throws: `.unknownKey` naming the key path and the class when the class does not
    ///   map it (``propertyName(for:)``), and `role` (what the key path was given for).
    static func requirePropertyName(for keyPath: AnyKeyPath, usedIn role: String) throws -> String {
        if let name = propertyName(for: keyPath) { return name }
        throw StrataError(
            .unknownKey,
            "The key path \(keyPath) in \(role) names no model property: \(self) maps no such key path (override propertyName(for:) to list it).",
            context: .init { $0.entity = entityName; $0.key = "\(keyPath)" })
    }
}
