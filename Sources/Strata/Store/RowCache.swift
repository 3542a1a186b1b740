import Foundation

/// The coordinator's row cache: the persistent values of records it read to fire faults
/// and refresh objects, and when, so that a context's ``ManagedObjectContext/stalenessInterval``
/// can reuse them (docs/SEMANTICS.md §5).
///
/// An entry is never newer than the coordinator's own knowledge: it is stamped with the
/// change generation read before the store was, and a record changed through this
/// coordinator (a save, a batch request, another process's change it caught up with) after
/// that is a miss. So only changes the coordinator has not seen — another coordinator's,
/// another process's not yet merged — can hide behind a cached row, which is what the
/// staleness interval is about.
final class RowCache: Sendable {
    private struct Entry {
        var values: [PropertyValue]
        var generation: UInt64
        var time: TimeInterval
    }

    /// Entries beyond this are dropped all at once: the cache saves round trips, it is not a
    /// second copy of the document.
    static let limit = 65_536
    private let entries = Locked<[ManagedObjectID: Entry]>([:])

    /// The cached row when its age fits `stalenessInterval` (negative: any age; zero: none)
    /// and the record has not changed since, as far as `changedSince` knows.
    func values(for id: ManagedObjectID, stalenessInterval: TimeInterval,
                changedSince: (UInt64) -> Bool) -> (values: [PropertyValue], generation: UInt64)? {
        guard stalenessInterval != 0 else { return nil }
        guard let entry = entries.withLock({ $0[id] }) else { return nil }
        if stalenessInterval > 0, Self.now() - entry.time >= stalenessInterval { return nil }
        if changedSince(entry.generation) { return nil }
        return (entry.values, entry.generation)
    }

    /// The cached rows of several records, in the order of `ids`, each as
    /// ``values(for:stalenessInterval:changedSince:)`` answers for it, under one
    /// acquisition of the lock.
    func values(for ids: [ManagedObjectID], stalenessInterval: TimeInterval,
                changedSince: (ManagedObjectID, UInt64) -> Bool) -> [(values: [PropertyValue], generation: UInt64)?] {
        guard stalenessInterval != 0 else { return Array(repeating: nil, count: ids.count) }
        let found: [Entry?] = entries.withLock { entries in
            entries.isEmpty ? Array(repeating: nil, count: ids.count) : ids.map { entries[$0] }
        }
        let now = stalenessInterval > 0 ? Self.now() : 0
        var result: [(values: [PropertyValue], generation: UInt64)?] = []
        result.reserveCapacity(ids.count)
        for (id, entry) in zip(ids, found) {
            guard let entry, stalenessInterval < 0 || now - entry.time < stalenessInterval,
                  !changedSince(id, entry.generation) else {
                result.append(nil)
                continue
            }
            result.append((entry.values, entry.generation))
        }
        return result
    }

    /// Keeps rows read from the store at `generation` (a batch of faults, a fetch's
    /// results), under one acquisition of the lock.
    func store(_ rows: some Sequence<(ManagedObjectID, [PropertyValue])>, generation: UInt64) {
        let time = Self.now()
        entries.withLock { entries in
            entries.reserveCapacity(min(Self.limit, entries.count + rows.underestimatedCount))
            for (id, values) in rows {
                if entries.count >= Self.limit, entries[id] == nil { entries.removeAll(keepingCapacity: true) }
                entries[id] = Entry(values: values, generation: generation, time: time)
            }
        }
    }

    /// Keeps a row read from the store at `generation`.
    func store(_ values: [PropertyValue], for id: ManagedObjectID, generation: UInt64) {
        let entry = Entry(values: values, generation: generation, time: Self.now())
        entries.withLock { entries in
            if entries.count >= Self.limit, entries[id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[id] = entry
        }
    }

    /// Forgets rows (records merged from elsewhere are read again).
    func remove(_ ids: some Sequence<ManagedObjectID>) {
        entries.withLock { entries in
            guard !entries.isEmpty else { return }
            for id in ids { entries[id] = nil }
        }
    }

    /// The number of cached rows (for tests).
    var count: Int { entries.withLock { $0.count } }

    private static func now() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}
