import Foundation
import Strata
import StrataToolSupport

extension InspectorDocument {
    /// `GET /api/file`: the file's make-up: size, segments stored and compacted, their
    /// compressed and raw bytes, the model versions and migrations, and one page of segments
    /// (newest first) for the composition chart.
    ///
    /// Parameters: `before` (a cursor: segments with a smaller sequence), `limit` (≤ 500).
    /// - Complexity: the page's segment rows; the totals come from `DocumentStore.info()`.
    package func file(_ parameters: InspectorParameters) throws -> JSONValue {
        let limit = try parameters.integer("limit", in: 1...InspectorParameters.maximumPageSize, default: 200)
        let before = try parameters.sequence("before")
        return try serialized {
            try store.catchUp()
            let info = try store.info()
            let last = info.lastSegment
            let end = min(before.map { $0 == 0 ? 0 : $0 - 1 } ?? last, last)
            var segments: [SegmentRecord] = []
            var high = end
            // Sequences can have gaps (retention drops old segments), so read back in windows.
            while high > 0, segments.count < limit {
                let low = high > UInt64(limit) ? high - UInt64(limit) + 1 : 1
                segments = try store.segmentRecords(in: low...high) + segments
                high = low - 1
                if low < info.firstRetainedSegment { break }
            }
            let page = segments.suffix(limit)
            let versions = try store.modelVersions()
            return .fields([
                "path": .string(info.path),
                "fileSize": .int(info.fileSize),
                "formatVersion": .int(info.formatVersion),
                "storeIdentifier": .string(info.storeIdentifier),
                "segmentCount": .int(info.segmentCount),
                "segmentBytes": .int(info.segmentBytes),
                "segmentRawBytes": .int(info.segmentRawBytes),
                "lastSegment": .int(info.lastSegment),
                "compactedThrough": .int(info.compactedThrough),
                "firstRetainedSegment": .int(info.firstRetainedSegment),
                "groupCount": .int(info.groupCount),
                "modelVersions": .array(versions.map { version in
                    .fields([
                        "version": .int(version.version),
                        "identifier": version.identifier.map { .string($0) } ?? .null,
                        "hash": .string(String(version.hash.prefix(12))),
                        "firstSegment": .int(version.firstSegment),
                        "migratedAt": version.migratedAt.map { .string($0) } ?? .null,
                        "custom": .bool(version.isCustom),
                    ])
                }),
                "segments": .array(page.reversed().map { record in
                    .fields([
                        "sequence": .int(record.sequence),
                        "time": InspectorValues.time(record.timestamp),
                        "bytes": .int(record.body.count),
                        "rawBytes": .int(record.rawSize),
                        "groups": .int(record.groupCount),
                        "operations": .int(record.operationCount),
                        "compacted": .bool(record.isCompacted),
                    ])
                }),
                "before": (page.first.map { $0.sequence > info.firstRetainedSegment } ?? false) ? .int(page.first!.sequence) : .null,
            ])
        }
    }

    /// `GET /api/undo`: what Undo and Redo would do next in a context whose stacks were
    /// rebuilt from the document (as `restoreUndoHistory()` rebuilds them), with the latest
    /// groups and whether each is undone.
    ///
    /// Parameters: `limit` (≤ 500) groups listed, newest first; `context`, a context name:
    /// the stacks of that context alone, rebuilt from the saves whose segment header names
    /// it (without it, the whole document's, as `restoreUndoHistory()` restores them).
    /// - Complexity: O(bytes of the retained log), as restoring the stacks is.
    package func undo(_ parameters: InspectorParameters) throws -> JSONValue {
        let limit = try parameters.integer("limit", in: 1...InspectorParameters.maximumPageSize, default: 20)
        let contextName = try parameters.text("context")
        return try serialized {
            try store.catchUp()
            let context = ManagedObjectContext(coordinator: coordinator)
            var records = try store.groupRecords()
            if let contextName {
                let groups = try groups(savedBy: contextName)
                context.undoManager?.restoreHistory(groups)
                let ids = Set(groups.map(\.info.id))
                records.removeAll { !ids.contains($0.info.id) }
            } else {
                try context.restoreUndoHistory()
            }
            let manager = context.undoManager
            let undone = ToolUndoState.undoneGroups(records.map(\.info))
            return .fields([
                "context": contextName.map { .string($0) } ?? .null,
                "contexts": .array(try contextNames().map { .string($0) }),
                "canUndo": .bool(manager?.canUndo ?? false),
                "undoActionName": .string(manager?.undoActionName ?? ""),
                "canRedo": .bool(manager?.canRedo ?? false),
                "redoActionName": .string(manager?.redoActionName ?? ""),
                "undoBoundary": try store.undoBoundary.map { .int($0) } ?? .null,
                "groups": .array(records.suffix(limit).reversed().map { record in
                    .fields([
                        "id": .int(record.info.id),
                        "sequence": .int(record.sequence),
                        "time": InspectorValues.time(record.timestamp),
                        "kind": .string(ToolLogText.kindName(record.info.kind)),
                        "action": .string(record.info.actionName),
                        "reverts": record.info.revertsGroup.map { .int($0) } ?? .null,
                        "undone": .bool(undone.contains(record.info.id)),
                    ])
                }),
            ])
        }
    }

    /// The groups of the saves a context named `name` made, oldest first, from the segments
    /// `historyGroups()` reads (the current model's, none taken in from a sync remote).
    private func groups(savedBy name: String) throws -> [SegmentGroup] {
        let since = try store.undoBoundary ?? 1
        let last = try store.logPosition.last
        guard since <= last else { return [] }
        let pulled = try store.pulledSegments(in: since...last)
        var groups: [SegmentGroup] = []
        var low = since
        while low <= last {
            let high = min(last, low + Self.timelineWindow * 8 - 1)
            for record in try store.segmentRecords(in: low...high) where !pulled.contains(record.sequence) {
                let segment = try store.decode(record)
                if segment.contextName == name { groups += segment.groups }
            }
            low = high + 1
        }
        return groups
    }

    /// The context names the retained log's saves carry, for the undo view's picker: read
    /// from the newest ``timelineWindow`` saves' headers.
    private func contextNames() throws -> [String] {
        let last = try store.logPosition.last
        guard last > 0 else { return [] }
        let first = last > Self.timelineWindow ? last - Self.timelineWindow + 1 : 1
        var names: [String] = []
        for record in try store.segmentRecords(in: first...last) {
            if let name = (try? store.saveHeader(record))?.contextName, !names.contains(name) { names.append(name) }
        }
        return names.sorted()
    }
}
