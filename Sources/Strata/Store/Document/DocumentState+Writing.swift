import Foundation

extension DocumentState {
    /// Appends one segment for the request in one transaction, after taking in other
    /// processes' saves; the overlay changes only once the transaction committed.
    /// - Throws: `.mergeConflict` when another process changed the same records since this
    ///   store last read the log; `.documentBusy`; SQLite errors. Nothing is written then.
    mutating func save(_ request: StoreSaveRequest, schema: SnapshotSchema, model: ManagedObjectModel, storeTag: UInt32,
                       maxSegmentSize: Int) throws {
        var patch = OverlayPatch()
        var sequence: UInt64 = 0
        var bodySize = 0
        try connection.transaction(.immediate) {
            let foreign = try catchUp(schema: schema, model: model, storeTag: storeTag, maxSegmentSize: maxSegmentSize)
            if !foreign.isEmpty {
                let mine = Set(request.groups.flatMap { $0.operations.map(\.objectID) })
                let clashes = mine.intersection(foreign)
                if !clashes.isEmpty {
                    throw StrataError(
                        .mergeConflict,
                        "Another process changed \(clashes.count) of the records this save changes: \(clashes.sorted().prefix(5).map(\.description).joined(separator: ", ")).",
                        context: ["objects": clashes.sorted().map(\.description).joined(separator: " ")])
                }
            }
            patch.reserveCapacity(request.groups.reduce(0) { $0 + $1.operations.count })
            for group in request.groups {
                for operation in group.operations {
                    try patch.apply(operation) { try self.currentValues($0, schema: schema) }
                }
            }
            sequence = lastSequence + 1
            let segment = Segment(sequence: sequence, timestamp: request.timestamp, groups: request.groups)
            let raw = try SegmentEncoder.encode(segment, model: model)
            let body = LZ4Frame.compress(raw)
            bodySize = body.count
            try connection.prepare(
                "INSERT INTO strata_segment (seq, time, groups, operations, raw_size, body) VALUES (?, ?, ?, ?, ?, ?)"
            ).run([
                .integer(Int64(sequence)), .real(request.timestamp.timeIntervalSince1970), .integer(Int64(request.groups.count)),
                .integer(Int64(segment.operationCount)), .integer(Int64(raw.count)), .blob(body),
            ])
            let groupInsert = try connection.prepare(
                "INSERT OR REPLACE INTO strata_group (seq, id, kind, reverts, action) VALUES (?, ?, ?, ?, ?)")
            for group in request.groups {
                try groupInsert.run([
                    .integer(Int64(sequence)), .integer(Int64(group.id)), .integer(Int64(group.kind.rawValue)),
                    group.revertsGroup.map { .integer(Int64($0)) } ?? .null, .text(group.actionName),
                ])
            }
            for (root, key) in patch.largestInsertedKey(in: model) where key > (meta.keyCounters[model.entities[root].name] ?? 0) {
                try DocumentFile.writeMeta(connection, key: "keyCounter.\(model.entities[root].name)", .integer(key))
            }
        }
        overlay.merge(patch)
        lastSequence = sequence
        uncompactedSegments += 1
        uncompactedBytes += bodySize
        for (root, key) in patch.largestInsertedKey(in: model) {
            keyCounters[root] = max(keyCounters[root] ?? 0, key)
            meta.keyCounters[model.entities[root].name] = max(meta.keyCounters[model.entities[root].name] ?? 0, key)
        }
        for group in request.groups { largestGroupID = max(largestGroupID, group.id) }
    }

    /// Reserves keys above every key handed out or seen, including keys other connections
    /// to the file saved since this one last read the log (their saves record the largest
    /// key in `strata_meta`).
    mutating func allocateKeys(root: Int, name: String, count: Int) throws -> ClosedRange<Int64> {
        let saved = try connection.prepare("SELECT value FROM strata_meta WHERE key = ?").rows([.text("keyCounter.\(name)")])
        if case .integer(let largest)? = saved.first?.first { keyCounters[root] = max(keyCounters[root] ?? 0, largest) }
        let first = (keyCounters[root] ?? 0) + 1
        let last = first + Int64(max(count, 1)) - 1
        keyCounters[root] = last
        return first...last
    }
}
