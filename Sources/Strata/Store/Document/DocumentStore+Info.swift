import Foundation

/// A summary of a document, for people and tools.
public struct DocumentInfo: Sendable, Hashable, Codable {
    /// The file's path.
    public var path: String
    /// The store identifier.
    public var storeIdentifier: String
    /// The document format version.
    public var formatVersion: Int
    /// The model's version hash.
    public var modelHash: String
    /// The model's version identifier, if any.
    public var modelVersion: String?
    /// Entities in the model.
    public var entityCount: Int
    /// Objects per entity (concrete entities only), overlay included.
    public var objectCounts: [String: Int]
    /// Segments stored.
    public var segmentCount: Int
    /// Compressed bytes of the stored segments.
    public var segmentBytes: Int
    /// Raw bytes of the stored segments.
    public var segmentRawBytes: Int
    /// The last segment.
    public var lastSegment: UInt64
    /// The last segment folded into the snapshot.
    public var compactedThrough: UInt64
    /// The first segment still stored (0 when none): history before it is gone.
    public var firstRetainedSegment: UInt64
    /// Undo groups recorded in the stored segments.
    public var groupCount: Int
    /// The file's size in bytes (with any WAL file).
    public var fileSize: Int
}

extension DocumentStore {
    /// A summary: model, object counts per entity, log and file sizes.
    public func info() throws -> DocumentInfo {
        try withOpenState { state in
            let connection = state.connection
            var counts: [String: Int] = [:]
            for entity in model.entities where !entity.isAbstract { counts[entity.name] = 0 }
            for root in model.entities where root.superentity == nil {
                let table = schema.table(for: root)
                // Without `_entity` every row is the root (and GROUP BY a number would name a
                // result column).
                let grouping = table.hasEntityColumn ? " GROUP BY \"_entity\"" : ""
                let rows = try connection.prepare(
                    "SELECT \(table.entitySQL(alias: nil)), COUNT(*) FROM \(SnapshotSchema.quote(root.name))\(grouping)").rows()
                for row in rows {
                    if case .integer(let index) = row[0], case .integer(let count) = row[1], let entity = model.entities[safe: Int(index)] {
                        counts[entity.name, default: 0] += Int(count)
                    }
                }
            }
            for id in state.overlay.deleted where try state.snapshotContains(id) {
                counts[id.entity.name, default: 0] -= 1
            }
            for id in state.overlay.rows.keys where try !state.snapshotContains(id) {
                counts[id.entity.name, default: 0] += 1
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let wal = try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")
            let size = ((attributes?[.size] as? NSNumber)?.intValue ?? 0) + ((wal?[.size] as? NSNumber)?.intValue ?? 0)
            let log = try LogTables.totals(connection)
            return DocumentInfo(
                path: url.path, storeIdentifier: identifier, formatVersion: state.meta.formatVersion,
                modelHash: model.versionHash, modelVersion: model.versionIdentifier, entityCount: model.entities.count,
                objectCounts: counts, segmentCount: log.segments,
                segmentBytes: log.bytes, segmentRawBytes: log.rawBytes,
                lastSegment: state.lastSequence, compactedThrough: state.meta.compactedThrough,
                firstRetainedSegment: log.first, groupCount: log.groups, fileSize: size)
        }
    }
}
