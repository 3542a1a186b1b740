import Foundation

/// Names a key path that runs through to-one relationships (`\Employee.department?.name`)
/// as the dotted key Strata sorts by (`department.name`).
///
/// Swift cannot split a key path into its parts, and a key path joined from the parts with
/// `appending(path:)` does not compare equal to the literal one. What both print is the
/// same, though: each part's accessor and value type in order
/// (`\Employee.<computed 0x… (Optional<Department>)>?.<computed 0x… (String)>?`), and each
/// part prints as it does in the one-part key path of its class
/// (``ManagedObject/propertyKeyPaths()``). So the key path is matched part by part against
/// those, from the root class through each to-one's destination class. Decision
/// (docs/PREDICATES.md §1b): a key path no part matches is reported as unknown, never guessed.
enum RelationshipKeyPath {
    /// The dotted name, or nil when the key path is not a chain of mapped parts through
    /// to-ones.
    static func name(of keyPath: AnyKeyPath, from root: ManagedObject.Type) -> String? {
        let text = "\(keyPath)"
        let prefix = rootPrefix(root)
        guard text.hasPrefix(prefix) else { return nil }
        return match(Substring(text.dropFirst(prefix.count)), in: root, isFirst: true)?.joined(separator: ".")
    }

    /// The names along `rest` (the key path's text after its root), starting at `type`.
    private static func match(_ rest: Substring, in type: ManagedObject.Type, isFirst: Bool) -> [String]? {
        let prefix = rootPrefix(type)
        for (keyPath, name) in type.propertyKeyPaths() {
            let full = "\(keyPath)"
            guard full.hasPrefix(prefix) else { continue }
            let part = full.dropFirst(prefix.count)
            // The last part: as printed alone, or wrapped in an optional by the chain.
            if !isFirst, rest == part || rest == part + "?" { return [name] }
            // A to-one on the way: the chain goes on with `?.` into its destination's class.
            guard rest.hasPrefix(part + "?."), let destination = toOneDestination(of: keyPath) else { continue }
            if let names = match(rest.dropFirst(part.count + 2), in: destination, isFirst: false) { return [name] + names }
        }
        return nil
    }

    /// `\Employee.`: how the key paths of `type` begin when printed.
    private static func rootPrefix(_ type: ManagedObject.Type) -> String {
        "\\" + String(describing: type) + "."
    }

    /// The class a to-one key path (`KeyPath<Employee, Department?>`) leads to.
    private static func toOneDestination(of keyPath: AnyKeyPath) -> ManagedObject.Type? {
        let value = type(of: keyPath).valueType
        if let optional = value as? any OptionalValue.Type { return optional.declaredWrappedType as? ManagedObject.Type }
        return value as? ManagedObject.Type
    }
}
