import Foundation

/// The objects changed since the last save, in order of first change, held strongly until
/// a save, rollback or reset lets them go.
///
/// A list, not a hashed set: each object's `inDirtySet` flag says whether it is in, so
/// adding and removing cost no hashing, and the list costs one reference per object where
/// an `OrderedDictionary` of identifiers and objects cost 21 bytes (a million-object
/// insert held 21 MiB of it through its save; docs/ARCHITECTURE.md, "Change tracking on
/// the hot path").
///
/// Removal clears the flag and leaves the entry (its object's `inDirtyList` flag stays on,
/// so adding it back revives the entry instead of adding a second one). The departed
/// entries are dropped once they are more than half of the list, or right away in a
/// short list; until then a long list keeps a departed object alive.
struct DirtyList {
    /// The objects, with departed ones (`inDirtySet` off) among them.
    private var entries: [ManagedObject] = []
    /// How many entries departed.
    private var departed = 0

    /// How many objects are in.
    var count: Int { entries.count - departed }
    /// Whether no object is in.
    var isEmpty: Bool { count == 0 }

    /// The objects that are in, in order of first change. Iterates the list as it was
    /// when read; an object that leaves while it runs is skipped.
    var values: LazyFilterSequence<[ManagedObject]> {
        entries.lazy.filter { $0.state.inDirtySet }
    }

    /// Puts `object` in (nothing when it is in already).
    mutating func insert(_ object: ManagedObject) {
        guard !object.state.inDirtySet else { return }
        object.state.inDirtySet = true
        if object.state.inDirtyList {
            departed -= 1
        } else {
            object.state.inDirtyList = true
            entries.append(object)
        }
    }

    /// Takes `object` out (nothing when it is not in).
    mutating func remove(_ object: ManagedObject) {
        guard object.state.inDirtySet else { return }
        object.state.inDirtySet = false
        departed += 1
        if departed * 2 > entries.count || entries.count <= Self.shortList { dropDeparted() }
    }

    /// Takes every object out.
    mutating func removeAll() {
        for object in entries {
            object.state.inDirtySet = false
            object.state.inDirtyList = false
        }
        entries = []
        departed = 0
    }

    /// Drops the departed entries, keeping the order of the rest.
    private mutating func dropDeparted() {
        entries.removeAll { object in
            if object.state.inDirtySet { return false }
            object.state.inDirtyList = false
            return true
        }
        departed = 0
    }

    /// The length up to which a departure drops its entry at once (so a small context
    /// releases an object as soon as it has nothing to save, as Core Data does).
    static let shortList = 256

    /// Problems with the list's bookkeeping, for the invariant checks.
    var violations: [String] {
        var problems: [String] = []
        let inside = entries.reduce(0) { $0 + ($1.state.inDirtySet ? 1 : 0) }
        if inside != count { problems.append("the dirty list counts \(count) objects in, but \(inside) have the flag") }
        if let object = entries.first(where: { !$0.state.inDirtyList }) {
            problems.append("\(object.objectID) is in the dirty list without its list flag")
        }
        return problems
    }
}
