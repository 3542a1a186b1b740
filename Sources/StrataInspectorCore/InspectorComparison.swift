import Strata

/// Folds the changes of consecutive saves into one change per object, as a comparison of
/// two saves shows them: inserted then changed is one insert with the last values, changed
/// then deleted one delete, inserted then deleted nothing; a property keeps its first old
/// and last new value, a to-many's members added and removed cancel, and a property that
/// ends where it began drops out.
struct InspectorComparison {
    private var order: [ManagedObjectID] = []
    private var folded: [ManagedObjectID: PersistentHistoryChange] = [:]

    /// Adds one save's changes, in save order.
    mutating func add(_ changes: [PersistentHistoryChange]) {
        for change in changes {
            guard var earlier = folded[change.objectID] else {
                order.append(change.objectID)
                folded[change.objectID] = change
                continue
            }
            switch (earlier.kind, change.kind) {
            case (.insert, .delete):
                folded[change.objectID] = nil
                continue
            case (_, .delete):
                earlier.kind = .delete
            case (.delete, .insert):
                earlier.kind = .update
            default:
                break
            }
            for property in change.properties {
                if let index = earlier.properties.firstIndex(where: { $0.key == property.key }) {
                    var folded = earlier.properties[index]
                    folded.new = property.new
                    // A member added then removed (or removed then added) is no change.
                    for member in property.added {
                        if let at = folded.removed.firstIndex(of: member) { folded.removed.remove(at: at) } else { folded.added.append(member) }
                    }
                    for member in property.removed {
                        if let at = folded.added.firstIndex(of: member) { folded.added.remove(at: at) } else { folded.removed.append(member) }
                    }
                    earlier.properties[index] = folded
                } else {
                    earlier.properties.append(property)
                }
            }
            folded[change.objectID] = earlier
        }
    }

    /// One change per object still changed, in the order each was first changed.
    func changes() -> [PersistentHistoryChange] {
        order.compactMap { id in
            guard var change = folded[id] else { return nil }
            // A property whose value ends where it began says nothing (an insert's empty
            // properties, a value set back); an update left with none drops out.
            change.properties.removeAll { ($0.old ?? .null) == ($0.new ?? .null) && $0.added.isEmpty && $0.removed.isEmpty }
            if change.kind == .update, change.properties.isEmpty { return nil }
            return change
        }
    }
}
