import Foundation

extension ManagedObject {
    /// The value of an attribute or relationship read without any side effect beyond
    /// firing the fault (Core Data's `primitiveValue(forKey:)`).
    ///
    /// - Throws: `.unknownKey` for a key the entity does not have.
    public func primitiveValue(forKey key: String) throws -> PropertyValue {
        try value(forKey: key)
    }

    /// Sets an attribute as a baseline value, not as a change (Core Data's
    /// `setPrimitiveValue(_:forKey:)`): nothing is flushed, logged, registered for undo
    /// or saved because of it, and the object does not become updated.
    ///
    /// Use it to compute derived or cached values, typically transient ones, in
    /// `awakeFromFetch()` or `awakeFromInsert()`:
    ///
    /// ```swift
    /// override func awakeFromFetch() {
    ///     super.awakeFromFetch()
    ///     try? setPrimitiveValue(.string("\(first) \(last)"), forKey: "fullName")
    /// }
    /// ```
    /// - Throws: `.unknownKey`; `.typeMismatch` for a value of the wrong type or for a
    ///   relationship (relationships change only through `setValue(_:forKey:)`, which
    ///   keeps inverses consistent).
    public func setPrimitiveValue(_ value: PropertyValue, forKey key: String) throws {
        let slot = try slotIndex(forKey: key)
        _ = try requireContext()
        try ensureLoaded()
        guard case .attribute(let index) = entity.slotKinds[slot] else {
            throw StrataError(
                .typeMismatch, "\(entity.name).\(key) is a relationship; set it with setValue(_:forKey:).",
                context: .init { $0.entity = entity.name; $0.key = key })
        }
        let attribute = entity.attributes[index]
        guard let coerced = ModelValueRules.coerce(value, to: attribute.attributeType) else {
            throw StrataError(
                .typeMismatch,
                "\(entity.name).\(key) is \(attribute.attributeType.rawValue); got \(ModelValueRules.kindName(value)) \(value).",
                context: .init { $0.entity = entity.name; $0.key = key })
        }
        storage[slot] = coerced
        changeRecords?.committedOld?[slot] = nil  // the committed value is the new one too
    }
}
