/// One key of a dictionary fetch's results, and how a stored row gives its value: a key
/// that names an attribute is the row's slot, one that names a to-one is the slot's
/// destination (when it exists); a key path through relationships is resolved as
/// predicates resolve it. Worked out once per fetch, not per row and key.
struct DictionaryColumn {
    enum Kind {
        /// A persistent attribute of the fetched entity (and its sub-entities): its slot.
        case attribute(Int)
        /// A to-one relationship: its slot.
        case toOne(Int)
        /// Anything else: `RowSubject.resolvedValue(atKeyPath:)`.
        case keyPath
    }

    /// The key as written: the result dictionaries' key.
    let path: String
    let kind: Kind

    /// The columns of `paths` on rows of `entity`.
    static func columns(_ paths: [String], of entity: EntityDescription) -> [DictionaryColumn] {
        paths.map { path in
            guard !path.contains("."), !path.hasPrefix("@"), entity.composite(named: path) == nil,
                  let slot = entity.slot(forKey: path) else { return DictionaryColumn(path: path, kind: .keyPath) }
            switch entity.slotKinds[slot] {
            case .attribute:
                return DictionaryColumn(path: path, kind: .attribute(slot))
            case .relationship(let index):
                return DictionaryColumn(path: path, kind: entity.relationships[index].isToMany ? .keyPath : .toOne(slot))
            }
        }
    }
}
