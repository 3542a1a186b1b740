extension StrataError.Context: CustomStringConvertible {
    /// The fields that are set, as `name: value` pairs in declaration order, under the
    /// fields' names (a stable format: `segment: 3, offset: 32, layer: lz4`); lists are
    /// written with commas, kinds by their raw values.
    public var description: String {
        entries.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }

    /// The fields that are set, named as in ``description``. Read by reflection of the
    /// stored fields, so a new field is listed without a second list to keep.
    package var entries: [(name: String, value: String)] {
        Mirror(reflecting: storage.fields).children.compactMap { child in
            guard let name = child.label, name != "hasSuggestion", let value = Self.text(of: child.value) else { return nil }
            return (name, value)
        }
    }

    /// A field's value as text, or nil when it is unset (nil or an empty list).
    private static func text(of value: Any) -> String? {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            return mirror.children.first.flatMap { text(of: $0.value) }
        case .collection:
            let items = mirror.children.compactMap { text(of: $0.value) }
            return items.isEmpty ? nil : items.joined(separator: ",")
        default:
            if let kind = value as? Kind { return kind.rawValue }
            if let layer = value as? Layer { return layer.rawValue }
            if let cause = value as? Cause { return cause.rawValue }
            return "\(value)"
        }
    }
}
