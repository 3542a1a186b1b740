import Foundation

/// The restores a document's history holds: where its undo and redo groups put deleted
/// characters back as new ones (docs/TEXT.md, "Undo"), read off the log so that a
/// context whose undo history was restored after a reopen follows them as the context
/// that made them did.
///
/// The log holds no restore as such: a restore is logged as the insertion it became. It
/// is one the log can tell apart, though: only an undo or redo group restores, the
/// characters it puts back are ones the group it reverts deleted (a restore of a deletion
/// of that group's, which the log records with its characters), and a stretch of them goes
/// back right after its own last character (``TextSequence/apply(_:peer:resolvingRestores:changed:)``),
/// so the insertion's left origin and length name exactly the characters it stands for.
/// An insertion of an undo or redo group that is not such a restore (one an app's own undo
/// action typed) is left out.
enum LoggedTextRestorations {
    /// One group of the history: its information and a reader of its operations (called at
    /// most once).
    typealias Group = (info: ChangeGroupInfo, operations: () throws -> [ChangeOperation])

    /// The restores of the undo and redo groups of `groups` (the history, oldest first), by
    /// text.
    /// - Complexity: O(operations) of the undo and redo groups that splice and of the groups
    ///   they revert; the rest are not read.
    static func read(from groups: [Group]) throws -> [TextKey: TextSequence.Restorations] {
        // A group saved in several segments is several entries of one ID, read in turn.
        var readers: [UInt64: [() throws -> [ChangeOperation]]] = [:]
        for group in groups { readers[group.info.id, default: []].append(group.operations) }
        var cache: [UInt64: [ChangeOperation]] = [:]
        func operations(of id: UInt64) throws -> [ChangeOperation] {
            if let cached = cache[id] { return cached }
            let read = try (readers[id] ?? []).flatMap { try $0() }
            cache[id] = read
            return read
        }
        var result: [TextKey: TextSequence.Restorations] = [:]
        var seen = Set<UInt64>()
        for group in groups where group.info.kind == .undo || group.info.kind == .redo {
            guard let reverted = group.info.revertsGroup, seen.insert(group.info.id).inserted else { continue }
            var insertions: [(TextKey, TextEdit.Step)] = []
            for case .splice(let id, let slot, let edit) in try operations(of: group.info.id) {
                for step in edit.steps { if case .insert = step { insertions.append((TextKey(id: id, slot: slot), step)) } }
            }
            guard !insertions.isEmpty else { continue }
            let deletions = deletedCharacters(in: try operations(of: reverted))
            // The group's own reads are done with; the reverted group may be reverted again.
            cache[group.info.id] = nil
            for (key, step) in insertions {
                guard case .insert(let restored, let left?, _, let scalars) = step, !scalars.isEmpty,
                      left.counter >= UInt32(scalars.count - 1) else { continue }
                let first = left.advanced(by: -(scalars.count - 1))
                // Character by character: the group's deletion may be logged in pieces (a
                // group saved in several segments) that its undo put back in one.
                guard let deleted = deletions[key],
                      scalars.indices.allSatisfy({ deleted[first.advanced(by: $0)] == scalars[$0] }) else { continue }
                result[key, default: .init()].addNew(deleted: first, count: scalars.count, restored: restored)
            }
        }
        return result
    }

    /// The characters `operations` delete, by text, with the scalars they showed.
    private static func deletedCharacters(in operations: [ChangeOperation]) -> [TextKey: [TextElementID: Unicode.Scalar]] {
        var deletions: [TextKey: [TextElementID: Unicode.Scalar]] = [:]
        for case .splice(let id, let slot, let edit) in operations {
            for case .delete(let start, let scalars) in edit.steps {
                for (offset, scalar) in scalars.enumerated() {
                    deletions[TextKey(id: id, slot: slot), default: [:]][start.advanced(by: offset)] = scalar
                }
            }
        }
        return deletions
    }
}

extension ManagedObjectContext {
    /// Takes in the restores of a restored undo history (``LoggedTextRestorations``): read
    /// at once when `lazily` is false, else at the first load of a text. Restores this
    /// context knows already are kept as they are.
    func takeInLoggedTextRestorations(of groups: [LoggedTextRestorations.Group], lazily: Bool) {
        loggedTextRestorations = { try LoggedTextRestorations.read(from: groups) }
        if !lazily { try? readLoggedTextRestorations() }
    }

    /// Reads the restores of the restored undo history, if not read yet, into the
    /// restorations of the texts this context holds and keeps the rest for their loads.
    /// - Throws: what reading the log throws (`.corruptSegment`); they are then read again
    ///   at the next load.
    func readLoggedTextRestorations() throws {
        guard let read = loggedTextRestorations else { return }
        let restorations = try read()
        loggedTextRestorations = nil
        for (key, logged) in restorations {
            if texts[key] != nil {
                texts[key]!.sequence.restorations.addNew(logged)
            } else {
                keptTextRestorations[key, default: .init()].addNew(logged)
            }
        }
    }
}
