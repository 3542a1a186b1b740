import Foundation

/// The first old value of each slot changed since a flush, in slot order.
///
/// The first entry lives inline in the object and further ones in a list: almost every
/// object changes one slot between flushes, and an inline entry costs no allocation and
/// no cache miss on a separate buffer (the list buffer of 10,000 edited objects missed the
/// cache on every edit).
struct FirstValues: Sequence {
    /// The first entry's slot, or -1 when empty.
    private var firstSlot = -1
    private var firstValue: PropertyValue = .null
    /// Entries after the first, in ascending slot order (all greater than `firstSlot`).
    private var more: [(slot: Int, value: PropertyValue)] = []

    var isEmpty: Bool { firstSlot < 0 }

    /// The one entry, when there is exactly one (the common case, read without iterating).
    var onlyEntry: (slot: Int, value: PropertyValue)? {
        firstSlot >= 0 && more.isEmpty ? (firstSlot, firstValue) : nil
    }

    subscript(slot: Int) -> PropertyValue? {
        get {
            if slot == firstSlot { return firstValue }
            if firstSlot < 0 || more.isEmpty { return nil }
            return more.first { $0.slot == slot }?.value
        }
        set {
            if slot == firstSlot {
                if let newValue { firstValue = newValue } else { removeFirst() }
            } else if let index = more.firstIndex(where: { $0.slot == slot }) {
                if let newValue { more[index].value = newValue } else { more.remove(at: index) }
                #if STRATA_INVARIANTS
                _checkInvariants()
                #endif
            } else if let newValue {
                insert(slot, newValue)
            }
        }
    }

    /// Records `value` for `slot` unless the slot has an entry already (the first old value
    /// wins). In place, without copying the existing entries' values.
    @inline(__always)
    mutating func recordFirst(_ slot: Int, _ value: @autoclosure () -> PropertyValue) {
        if slot == firstSlot { return }
        if firstSlot < 0 {
            firstSlot = slot
            firstValue = value()
            return
        }
        if !more.isEmpty, more.contains(where: { $0.slot == slot }) { return }
        insert(slot, value())
    }

    /// Whether any entry differs from the current value of its slot.
    ///
    /// `mutating` though it changes nothing: called through optional chaining on an
    /// object's stored property (`committedOld?.differs(from:)`), a mutating method works on
    /// the value in place, where a non-mutating one gets a copy of it (with a retain and a
    /// release of its values) on every call.
    mutating func differs(from storage: ObjectValues) -> Bool {
        guard firstSlot >= 0 else { return false }
        if firstSlot < storage.count, storage[firstSlot] != firstValue { return true }
        return more.contains { $0.slot < storage.count && storage[$0.slot] != $0.value }
    }

    private mutating func insert(_ slot: Int, _ value: PropertyValue) {
        if firstSlot < 0 {
            firstSlot = slot
            firstValue = value
        } else if slot < firstSlot {
            more.insert((firstSlot, firstValue), at: 0)
            firstSlot = slot
            firstValue = value
        } else {
            let position = more.firstIndex { $0.slot > slot } ?? more.count
            more.insert((slot, value), at: position)
        }
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    private mutating func removeFirst() {
        if more.isEmpty {
            firstSlot = -1
            firstValue = .null
        } else {
            (firstSlot, firstValue) = more.removeFirst()
        }
        #if STRATA_INVARIANTS
        _checkInvariants()
        #endif
    }

    /// No entries.
    init() {}

    /// One entry.
    init(slot: Int, value: PropertyValue) {
        firstSlot = slot
        firstValue = value
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        guard firstSlot >= 0 else { return }
        firstSlot = -1
        firstValue = .null
        if !more.isEmpty { more.removeAll(keepingCapacity: keepingCapacity) }
    }

    func mapValues(_ transform: (PropertyValue) -> PropertyValue) -> FirstValues {
        var copy = self
        if firstSlot >= 0 { copy.firstValue = transform(firstValue) }
        for index in copy.more.indices { copy.more[index].value = transform(copy.more[index].value) }
        return copy
    }

    func makeIterator() -> Iterator { Iterator(values: self) }

    /// Iterates (slot, first old value) pairs in ascending slot order.
    struct Iterator: IteratorProtocol {
        fileprivate let values: FirstValues
        private var position = -1

        fileprivate init(values: FirstValues) { self.values = values }

        mutating func next() -> (Int, PropertyValue)? {
            defer { position += 1 }
            if position < 0 { return values.firstSlot < 0 ? nil : (values.firstSlot, values.firstValue) }
            guard position < values.more.count else { return nil }
            return values.more[position]
        }
    }
}

#if STRATA_INVARIANTS
extension FirstValues {
    /// Every broken invariant: slots ascend strictly from the inline first entry, and an
    /// empty value (first slot -1) has no further entries. O(entries): one object's slots.
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        if firstSlot < 0 {
            if firstSlot != -1 { problems.append("the empty marker is \(firstSlot), not -1") }
            if !more.isEmpty { problems.append("no first entry, yet \(more.count) more") }
        }
        var previous = firstSlot
        for entry in more {
            if entry.slot <= previous { problems.append("slot \(entry.slot) follows slot \(previous)") }
            previous = entry.slot
        }
        return problems
    }

    /// Stops the process when an invariant is broken (after every change of the slot list).
    func _checkInvariants() { checkInvariants(of: "FirstValues", _invariantViolations()) }

    /// Breaks the slot order, for the test that shows the check catches it.
    mutating func _corruptForTesting() { more.append((slot: firstSlot, value: .null)) }
}
#endif
