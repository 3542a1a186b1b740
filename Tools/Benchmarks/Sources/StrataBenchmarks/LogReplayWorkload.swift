import CLZ4
import Foundation
import Strata

/// W6 log replay: W2's session (populate, edits, undo all, redo all) saved into a document
/// every `groupsPerSegment` groups, then every segment read back and replayed.
///
/// Figures: `W6.lz4_ops_per_s` (LZ4 frame decompression alone of the same bytes, per
/// operation they hold), `W6.lz4_mb_per_s`, `W6.decode_ops_per_s` (decompress + decode),
/// `W6.apply_ops_per_s` (applying decoded segments to an `InMemoryStore`),
/// `W6.replay_materialized_ops_per_s` (decode + apply), `W6.replay_ops_per_s` (the
/// streaming replay, `DocumentStore.replay(_:into:)`: decompress, decode and apply in one
/// pass into a second `InMemoryStore`, checked to hold the same records), `W6.operations`;
/// `W7.segment_bytes_per_edit` (stored bytes per operation of the edit, undo and redo
/// segments).
enum LogReplayWorkload {
    static func runStrata(_ env: BenchEnvironment) throws -> [String: Double] {
        let tier = env.tier
        let model = BenchData.model()
        let url = env.file("w6.strata")
        let store = try DocumentStore(creatingAt: url, model: model, overwrite: true, configuration: BulkCreateWorkload.configuration())
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager?.levelsOfUndo = 0
        let employees = try EditUndoWorkload.populate(context, objects: tier.editObjects)
        let editsPerSegment = tier.editsPerGroup * tier.groupsPerSegment
        var start = 0
        while start < tier.edits {
            let end = min(start + editsPerSegment, tier.edits)
            try EditUndoWorkload.edit(employees, range: start..<end, objects: tier.editObjects,
                                      editsPerGroup: tier.editsPerGroup, context: context)
            try context.save()
            start = end
        }
        guard let undo = context.undoManager else { return [:] }
        while undo.canUndo { try undo.undo() }
        try context.save()
        while undo.canRedo { try undo.redo() }
        try context.save()
        note("W6 strata: history built")

        let (records, readSeconds) = try Clock.measure { try store.segmentRecords() }
        let operations = records.reduce(0) { $0 + $1.operationCount }
        let compressed = records.reduce(0) { $0 + $1.body.count }
        let raw = records.reduce(0) { $0 + $1.rawSize }
        let editRecords = records.dropFirst()
        let editBytes = editRecords.reduce(0) { $0 + $1.body.count }
        let editOperations = editRecords.reduce(0) { $0 + $1.operationCount }

        let (_, lz4Seconds) = try Clock.measure {
            for record in records { blackHole(try decompress(record.body, rawSize: record.rawSize)) }
        }
        let (segments, decodeSeconds) = try Clock.measure { try records.map { try store.decode($0) } }
        let replica = InMemoryStore(model: model)
        let (_, applySeconds) = try Clock.measure {
            for segment in segments { try replica.save(StoreSaveRequest(groups: segment.groups, timestamp: segment.timestamp)) }
        }
        let streamed = InMemoryStore(model: model)
        let (_, replaySeconds) = try Clock.measure {
            for record in records { try store.replay(record, into: streamed) }
        }
        let check = try replica.values(for: employees[0].objectID)
        guard check == (try store.values(for: employees[0].objectID)) else {
            throw RawSQLite.Failure(description: "W6: the replayed record differs from the document's")
        }
        for entity in model.entities {
            let ids = try replica.objectIDs(for: entity, includingSubentities: false)
            guard ids == (try streamed.objectIDs(for: entity, includingSubentities: false)),
                  try ids.allSatisfy({ try replica.values(for: $0) == (try streamed.values(for: $0)) })
            else {
                throw RawSQLite.Failure(description: "W6: the streaming replay differs from decode + save")
            }
        }
        try store.close()
        let ops = Double(operations)
        return [
            "W6.operations": ops, "W6.segments": Double(records.count), "W6.read_s": readSeconds,
            "W6.lz4_ops_per_s": ops / lz4Seconds, "W6.lz4_mb_per_s": Double(raw) / 1e6 / lz4Seconds,
            "W6.decode_ops_per_s": ops / decodeSeconds, "W6.apply_ops_per_s": ops / applySeconds,
            "W6.replay_materialized_ops_per_s": ops / (decodeSeconds + applySeconds),
            "W6.replay_ops_per_s": ops / replaySeconds,
            "W6.compression_ratio": Double(raw) / Double(max(compressed, 1)),
            "W6.peak_mib": peakMemoryMiB(),
            "W7.segment_bytes_per_edit": Double(editBytes) / Double(max(editOperations, 1)),
        ]
    }

    /// One LZ4 frame decompressed with liblz4 alone (no checks beyond the library's).
    static func decompress(_ frame: [UInt8], rawSize: Int) throws -> [UInt8] {
        var context: OpaquePointer?
        guard LZ4F_isError(LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))) == 0 else {
            throw RawSQLite.Failure(description: "LZ4: no decompression context")
        }
        defer { LZ4F_freeDecompressionContext(context) }
        var output = [UInt8](repeating: 0, count: rawSize)
        var produced = 0
        var consumed = 0
        try frame.withUnsafeBytes { source in
            try output.withUnsafeMutableBytes { destination in
                while consumed < source.count {
                    var outSize = destination.count - produced
                    var inSize = source.count - consumed
                    let hint = LZ4F_decompress(context, destination.baseAddress! + produced, &outSize,
                                               source.baseAddress! + consumed, &inSize, nil)
                    if LZ4F_isError(hint) != 0 { throw RawSQLite.Failure(description: "LZ4: corrupt frame") }
                    produced += outSize
                    consumed += inSize
                    if hint == 0 { break }
                }
            }
        }
        return output
    }
}
