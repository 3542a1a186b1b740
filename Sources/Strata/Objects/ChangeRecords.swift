import Foundation

/// The old values an object records while it has changes: its committed values (since the
/// last save or load) and its first old values since the last flush.
///
/// Out of line, allocated at an object's first change after its insertion, fetch or save:
/// most objects of a big context are never changed once loaded or inserted (W1 inserts a
/// million and saves them), and two inline records cost every one of them 80 bytes. The
/// box stays while the object has unsaved changes, so a run of edits and flushes allocates
/// once; a save (or rollback, or a change set back) that leaves both records empty frees it.
final class ChangeRecords {
    /// The value each slot had at the last save or load, for the slots changed since then
    /// (nil while nothing changed; see ``ManagedObject/committedOld``).
    @exclusivity(unchecked) var committedOld: FirstValues?
    /// First old value per slot since the last `processPendingChanges()`.
    @exclusivity(unchecked) var flushOld = FirstValues()

    init(committedOld: FirstValues? = nil, flushOld: FirstValues = FirstValues()) {
        self.committedOld = committedOld
        self.flushOld = flushOld
    }

    /// Whether the records hold nothing, so the object can drop them.
    var isEmpty: Bool { committedOld == nil && flushOld.isEmpty }
}

extension ManagedObject {
    /// The value each slot had at the last save or load, for the slots changed since then
    /// (nil while nothing changed). A slot's committed value is its entry here, or its
    /// current value when it has none. Kept per changed slot instead of a copy of every
    /// value: telling whether an object is back to its committed values reads no other
    /// buffer. Assigning nil frees the records when the flush record is empty too.
    var committedOld: FirstValues? {
        get { changeRecords?.committedOld }
        set {
            if let records = changeRecords {
                records.committedOld = newValue
                if newValue == nil, records.flushOld.isEmpty { changeRecords = nil }
            } else if let newValue {
                changeRecords = ChangeRecords(committedOld: newValue)
            }
        }
    }

    /// First old value per slot since the last `processPendingChanges()` (empty when the
    /// object has no records). Changing it in place allocates the records when needed.
    var flushOld: FirstValues {
        _read {
            if let records = changeRecords {
                yield records.flushOld
            } else {
                yield FirstValues()
            }
        }
        _modify {
            let records: ChangeRecords
            if let existing = changeRecords {
                records = existing
            } else {
                records = ChangeRecords()
                changeRecords = records
            }
            yield &records.flushOld
        }
    }

    /// Empties the flush record without allocating records the object does not have.
    /// `keepingCapacity`: a flush keeps the box and its buffer for the next edits of a
    /// changed object; otherwise records left empty are freed.
    func clearFlushOld(keepingCapacity: Bool = false) {
        guard let records = changeRecords else { return }
        records.flushOld.removeAll(keepingCapacity: keepingCapacity)
        if !keepingCapacity, records.committedOld == nil { changeRecords = nil }
    }

    /// Records `slot`'s current value as its first old value since the flush, unless it has
    /// one already.
    @inline(__always)
    func recordFlushOld(slot: Int) {
        if let records = changeRecords {
            records.flushOld.recordFirst(slot, storage[slot])
        } else {
            changeRecords = ChangeRecords(flushOld: FirstValues(slot: slot, value: storage[slot]))
        }
    }
}
