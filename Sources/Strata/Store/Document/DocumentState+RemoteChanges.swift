import Foundation

/// What catch-ups found other connections changed since the store last handed it to its
/// coordinator (``DocumentStore/catchUp()``): the change lists of a ``StoreRemoteChange``.
struct PendingRemoteChanges {
    var changes = SaveChanges()
    /// The foreign segments applied.
    var sequences: ClosedRange<UInt64>?
    /// A catch-up could not tell which records changed (see ``StoreRemoteChange/mayHaveChangedEverything``).
    var mayHaveChangedEverything = false

    var isEmpty: Bool { changes.isEmpty && !mayHaveChangedEverything }

    mutating func applied(_ range: ClosedRange<UInt64>) {
        sequences = min(sequences?.lowerBound ?? range.lowerBound, range.lowerBound)...range.upperBound
    }

    /// Adds what one catch-up found, the later state of a record winning: a record deleted
    /// after an earlier catch-up reported it inserted is only deleted, and so on.
    mutating func add(inserted: Set<ManagedObjectID>, updated: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>) {
        for id in deleted {
            changes.inserted.remove(id)
            changes.updated.remove(id)
            changes.deleted.insert(id)
        }
        for id in inserted {
            changes.deleted.remove(id)
            changes.updated.remove(id)
            changes.inserted.insert(id)
        }
        for id in updated where !changes.inserted.contains(id) {
            changes.deleted.remove(id)
            changes.updated.insert(id)
        }
    }
}

extension DocumentState {
    /// Sorts the records a catch-up touched into inserted (an insert operation named them
    /// and they exist), deleted (they do not exist now) and updated, and adds them to
    /// ``pendingRemoteChanges``.
    mutating func noteRemoteChanges(touched: Set<ManagedObjectID>, inserted: Set<ManagedObjectID>) throws {
        var updated: Set<ManagedObjectID> = []
        var created: Set<ManagedObjectID> = []
        var deleted: Set<ManagedObjectID> = []
        for id in touched {
            let exists: Bool
            switch overlay.lookup(id) {
            case .row: exists = true
            case .deleted: exists = false
            case .unknown: exists = try snapshotContains(id)
            }
            if !exists {
                deleted.insert(id)
            } else if inserted.contains(id) {
                created.insert(id)
            } else {
                updated.insert(id)
            }
        }
        pendingRemoteChanges.add(inserted: created, updated: updated, deleted: deleted)
    }

    /// The records named by the segments after `last` through `compacted`, which another
    /// connection compacted before this one read them, and those of them inserted; nil when
    /// its retention already dropped some of them (the catch-up cannot tell what changed).
    func recordsInCompactedGap(after last: UInt64, through compacted: UInt64) throws
        -> (touched: Set<ManagedObjectID>, inserted: Set<ManagedObjectID>)?
    {
        let rows = try connection.prepare("SELECT seq, body FROM strata_segment WHERE seq > ? AND seq <= ? ORDER BY seq")
            .rows([.integer(Int64(last)), .integer(Int64(compacted))])
        guard UInt64(rows.count) == compacted - last else { return nil }
        var touched: Set<ManagedObjectID> = []
        var inserted: Set<ManagedObjectID> = []
        for row in rows {
            guard case .integer(let seq) = row[0], case .blob(let body) = row[1] else { return nil }
            let segment = try SegmentCodec.decodeCompressed(
                body, model: model, storeTag: storeTag, sequenceHint: UInt64(seq), maxContentSize: maxSegmentSize)
            for group in segment.groups {
                for operation in group.operations {
                    touched.insert(operation.objectID)
                    if case .insert(let id, _) = operation { inserted.insert(id) }
                }
            }
        }
        return (touched, inserted)
    }
}
