import Foundation

/// Names a key path that runs through to-one relationships (`\Employee.department?.name`)
/// as the dotted key Strata sorts by (`department.name`).
///
/// Swift cannot split a key path into its parts. It can join them: the root class's key
/// path to a to-one (``ManagedObject/propertyKeyPaths()``, `\Employee.department`) joined
/// with `appending(path:)` to the destination class's key path from an optional of it
/// (``ManagedObject/optionalPropertyKeyPaths()``, `\Department?.?.name`). The joined key
/// path hashes like the literal one — the hash covers each part's identity — though it
/// does not compare equal (the joined buffer is laid out differently). So the candidates,
/// a few per class on the way, are joined and the one with the literal's hash and value
/// type is taken. Decision (docs/PREDICATES.md §1b): a key path no candidate matches stays
/// unknown, never guessed.
enum RelationshipKeyPath {
    /// How many to-ones a chain may run through (the candidates grow with each).
    static let maximumHops = 4

    /// The dotted name, or nil when the key path is not a chain through to-ones of
    /// `@Entity` classes.
    static func name(of keyPath: AnyKeyPath, from root: ManagedObject.Type) -> String? {
        for (prefix, name) in root.propertyKeyPaths() {
            guard let destination = toOneDestination(of: prefix) else { continue }
            if let rest = match(keyPath, after: prefix, in: destination, hops: 1) { return ([name] + rest).joined(separator: ".") }
        }
        return nil
    }

    /// The names after `prefix` (a key path to an optional object of `type`) that make `keyPath`.
    private static func match(_ keyPath: AnyKeyPath, after prefix: AnyKeyPath, in type: ManagedObject.Type, hops: Int) -> [String]? {
        let wanted = keyPath.hashValue
        let candidates = type.optionalPropertyKeyPaths().compactMap { part in
            prefix.appending(path: part.keyPath).map { (joined: $0, name: part.name, part: part.keyPath) }
        }
        for candidate in candidates where candidate.joined.hashValue == wanted && Swift.type(of: candidate.joined) == Swift.type(of: keyPath) {
            return [candidate.name]
        }
        guard hops < maximumHops else { return nil }
        for candidate in candidates {
            guard let destination = toOneDestination(of: candidate.part) else { continue }
            if let rest = match(keyPath, after: candidate.joined, in: destination, hops: hops + 1) { return [candidate.name] + rest }
        }
        return nil
    }

    /// The class a to-one key path (`KeyPath<Employee, Department?>`) leads to.
    private static func toOneDestination(of keyPath: AnyKeyPath) -> ManagedObject.Type? {
        let value = type(of: keyPath).valueType
        if let optional = value as? any OptionalValue.Type { return optional.declaredWrappedType as? ManagedObject.Type }
        return value as? ManagedObject.Type
    }
}
