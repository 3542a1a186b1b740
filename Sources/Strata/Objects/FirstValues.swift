import Foundation

/// The first old value of each slot changed since a flush: a small list kept in slot
/// order, not a dictionary, because an object rarely changes more than a few slots between
/// flushes and a list costs no hashing and one allocation that is kept between flushes.
struct FirstValues: Sequence {
    private var slots: [Int] = []
    private var values: [PropertyValue] = []

    var isEmpty: Bool { slots.isEmpty }

    subscript(slot: Int) -> PropertyValue? {
        get {
            guard let index = slots.firstIndex(of: slot) else { return nil }
            return values[index]
        }
        set {
            if let index = slots.firstIndex(of: slot) {
                if let newValue { values[index] = newValue } else {
                    slots.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                let position = slots.firstIndex { $0 > slot } ?? slots.count
                slots.insert(slot, at: position)
                values.insert(newValue, at: position)
            }
        }
    }

    /// The slots recorded, in ascending order.
    var sortedSlots: [Int] { slots }

    mutating func removeAll(keepingCapacity: Bool = false) {
        slots.removeAll(keepingCapacity: keepingCapacity)
        values.removeAll(keepingCapacity: keepingCapacity)
    }

    func mapValues(_ transform: (PropertyValue) -> PropertyValue) -> FirstValues {
        var copy = self
        copy.values = values.map(transform)
        return copy
    }

    func makeIterator() -> Zip2Sequence<[Int], [PropertyValue]>.Iterator {
        zip(slots, values).makeIterator()
    }
}
