import Foundation

/// The context's uniquing table: one entry per registered object, by its ID.
///
/// An ``ObjectIDTable``: this lookup runs once per operation of every undo and redo, and
/// once per object inserted and saved, and the table reaches an entry by two array indexes
/// (entity, key) without hashing. A context's objects have temporary IDs until their first
/// save and permanent ones after it: each kind gets a run of its own (temporary numbers are
/// process-wide, but one context's are close together). An entry is one word
/// (``WeakObject``).
struct ObjectRegistry {
    private var table = ObjectIDTable<WeakObject>()
    #if STRATA_INVARIANTS
    private var sampler = InvariantSampler()
    #endif

    var count: Int { table.count }

    subscript(id: ManagedObjectID) -> WeakObject? {
        get { table[id] }
        set {
            #if STRATA_INVARIANTS
            defer { _checkInvariants(after: id) }
            #endif
            table[id] = newValue
        }
    }

    /// Every entry.
    var values: [WeakObject] { Array(table.values) }

    mutating func removeAll() { table.removeAll() }
}

#if STRATA_INVARIANTS
extension ObjectRegistry {
    /// Every broken invariant of the whole table: the table's own (``ObjectIDTable``), and
    /// each entry's object has the ID it is registered under. O(entries).
    func _invariantViolations() -> [String] {
        var problems = table._invariantViolations()
        for (id, entry) in table {
            let object = entry.object!
            if object.objectID != id { problems.append("\(object.objectID) is registered as \(id)") }
        }
        return problems
    }

    /// Stops the process when a change of `id`'s entry broke an invariant; now and then
    /// (amortized O(1)) checks the whole table.
    private mutating func _checkInvariants(after id: ManagedObjectID) {
        checkInvariants(of: "ObjectRegistry", table._violations(touching: id))
        if sampler.isFullCheckDue(after: 1, size: count) { checkInvariants(of: "ObjectRegistry", _invariantViolations()) }
    }

    /// Miscounts the entries, for the test that shows the check catches it.
    mutating func _corruptForTesting() { table._corruptForTesting() }
}
#endif
