import OrderedCollections

// Editing a to-many's members in time proportional to the change, not to the relationship.
// A department with 100,000 employees made every per-member step that touched the whole
// set (a copy, a sort, a removal that shifts the tail, an `Array` built to ask `contains`)
// cost 100,000 steps, and whole-document passes quadratic (issue 12, item 5).

extension PropertyValue {
    /// Whether a relationship value names `id` (the to-one's destination, or a member of
    /// the to-many), in O(1).
    ///
    /// Asking this instead of binding the members in the caller (`case .objects(let
    /// current)`, or `objectIDs.contains`) keeps no second reference to the set alive, so
    /// a following in-place edit does not copy the whole set, and builds no array.
    func holds(_ id: ManagedObjectID) -> Bool {
        switch self {
        case .object(let destination): return destination == id
        case .objects(let members): return members.contains(id)
        default: return false
        }
    }
}

extension OrderedSet where Element == ManagedObjectID {
    /// Applies a relate operation's removals then additions, keeping the other members'
    /// order. Removing many members is one pass over the set; removing each on its own
    /// shifted the tail once per member (undoing an import of 100,000 employees into one
    /// department removes 100,000).
    mutating func relate(adding added: some Collection<ManagedObjectID>, removing removed: some Collection<ManagedObjectID>) {
        if removed.count <= Self.removalsDoneOneByOne {
            for member in removed { remove(member) }
        } else {
            let doomed = Set(removed)
            removeAll(where: doomed.contains)
        }
        if !added.isEmpty {
            reserveCapacity(count + added.count)
            for member in added { append(member) }
        }
    }

    /// Up to this many removals, removing each in turn (a shift of the tail each) is
    /// cheaper than hashing them into a set and rebuilding the set's hash table.
    private static var removalsDoneOneByOne: Int { 8 }

    /// Sorts unordered members after `added` were appended by ``relate(adding:removing:)``,
    /// skipping the sort when the result is known to be in order already: the members
    /// before were sorted (`wasSorted`) and every added member came after the last one in
    /// increasing order (new objects get increasing keys, so an import always does).
    mutating func sortAfterAppending(_ added: some Collection<ManagedObjectID>, previousLast: ManagedObjectID?, wasSorted: Bool) {
        if wasSorted, Self.extendsInOrder(added, after: previousLast) { return }
        sort()
    }

    /// Whether `added` is strictly increasing and starts after `last`.
    private static func extendsInOrder(_ added: some Collection<ManagedObjectID>, after last: ManagedObjectID?) -> Bool {
        var previous = last
        for member in added {
            if let previous, !(previous < member) { return false }
            previous = member
        }
        return true
    }
}
