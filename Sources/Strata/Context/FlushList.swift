import Foundation

/// The objects changed since the last flush, in order of first change.
///
/// A plain list: each object's `inFlushSet` flag already keeps it from being added twice,
/// so adding costs no hashing. Removal (an object unregistered or refreshed before the
/// flush) is a linear scan, and rare.
struct FlushList {
    private(set) var values: [ManagedObject] = []

    var isEmpty: Bool { values.isEmpty }
    var count: Int { values.count }

    /// Adds `object` (the caller checks it is not there yet), or removes the object with
    /// that identity when assigned nil.
    subscript(key: ObjectIdentifier) -> ManagedObject? {
        get { values.first { ObjectIdentifier($0) == key } }
        set {
            if let newValue {
                values.append(newValue)
            } else {
                values.removeAll { ObjectIdentifier($0) == key }
            }
        }
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        values.removeAll(keepingCapacity: keepingCapacity)
    }
}
