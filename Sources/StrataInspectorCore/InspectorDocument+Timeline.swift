import Foundation
import Strata
import StrataToolSupport

extension InspectorDocument {
    /// How many saves one timeline request decodes at most while looking for a filtered
    /// page; the answer's `before` cursor continues the search.
    static let timelineScanLimit: UInt64 = 5_000
    /// How many saves are decoded at a time, newest window first.
    static let timelineWindow: UInt64 = 64
    /// The most object changes one save or comparison lists (the rest is counted).
    static let changeListLimit = 1_000
    /// The most saves a comparison folds.
    static let compareLimit: UInt64 = 20_000

    /// `GET /api/timeline`: saves newest first, a page at a time, decoding only the
    /// segments the page needs.
    ///
    /// Parameters: `before` (a cursor: saves with a smaller sequence; default, the newest);
    /// `limit` (≤ 500); filters `author`, `context`, `entity`, `kind` (user, undo, redo,
    /// unregistered, batch, merge, sync, migration: ``InspectorTimeline/kindNames``). The answer's `before` is the next page's cursor, null
    /// at the start of the retained log.
    package func timeline(_ parameters: InspectorParameters) throws -> JSONValue {
        let limit = try parameters.integer("limit", in: 1...InspectorParameters.maximumPageSize, default: InspectorParameters.defaultPageSize)
        let before = try parameters.sequence("before")
        let author = try parameters.text("author"), context = try parameters.text("context")
        let entity = try parameters.text("entity"), kind = try parameters.text("kind")
        if let kind, !InspectorTimeline.kindNames.contains(kind) {
            throw InspectorError.badRequest("The kind \(InspectorParameters.quoted(kind)) is not one of \(InspectorTimeline.kindNames.joined(separator: ", ")).")
        }
        return try serialized {
            try store.catchUp()
            if let entity { _ = try Self.entity(named: entity, in: model) }
            let last = try store.logPosition.last
            var end = min(before.map { $0 == 0 ? 0 : $0 - 1 } ?? last, last)
            let filters = TimelineFilters(author: author, context: context, entity: entity, kind: kind)
            var rows: [JSONValue] = []
            var scanned: UInt64 = 0
            let migrations = Set(try store.modelVersions().dropFirst().map(\.firstSegment))
            while end > 0, rows.count < limit, scanned < Self.timelineScanLimit {
                let start = end > Self.timelineWindow ? end - Self.timelineWindow : 0
                var considered = start + 1
                let pulled = try store.pulledSegments(in: (start + 1)...end)
                for record in try store.segmentRecords(in: (start + 1)...end).reversed() {
                    if rows.count == limit { break }
                    considered = record.sequence
                    let extra = (pulled.contains(record.sequence) ? [InspectorTimeline.syncKind] : [])
                        + (migrations.contains(record.sequence) ? [InspectorTimeline.migrationKind] : [])
                    if let row = try timelineRowOrDamage(record, filters, extraKinds: extra) { rows.append(row) }
                }
                scanned += end - start
                end = rows.count == limit ? considered - 1 : start
            }
            return .fields([
                "lastSequence": .int(last),
                "saves": .array(rows),
                "before": end > 0 ? .int(end + 1) : .null,
            ])
        }
    }

    /// The kinds of save `sequence` beyond its groups': sync, migration
    /// (``InspectorTimeline/kindNames``).
    func extraKinds(of sequence: UInt64) throws -> [String] {
        let migrations = try store.modelVersions().dropFirst().map(\.firstSegment)
        return (try store.pulledSegments(in: sequence...sequence).isEmpty ? [] : [InspectorTimeline.syncKind])
            + (migrations.contains(sequence) ? [InspectorTimeline.migrationKind] : [])
    }

    /// The most operations a save may have for the timeline to summarize its changes; a
    /// bigger save (a batch import) is listed from its header, without decoding it.
    static let summaryOperationLimit = 2_000

    /// A save's timeline row; for a damaged save of the history, a row saying so (listed
    /// unless a filter is set, since its author, context and kinds cannot be read).
    private func timelineRowOrDamage(_ record: SegmentRecord, _ filters: TimelineFilters, extraKinds: [String]) throws -> JSONValue? {
        do {
            return try timelineRow(record, filters, extraKinds: extraKinds)
        } catch let error as StrataError where error.code == .corruptSegment {
            historyDamage.segments[record.sequence] = error.message
            guard filters.author == nil, filters.context == nil, filters.entity == nil, filters.kind == nil else { return nil }
            return .fields([
                "sequence": .int(record.sequence),
                "time": InspectorValues.time(record.timestamp),
                "author": .null, "context": .null, "action": .string(""), "kinds": .array([]), "groups": .array([]),
                "summary": .fields(["summarized": .bool(false), "operations": .int(record.operationCount)]),
                "damaged": .string(error.message),
            ])
        }
    }

    /// A save's timeline row, or nil when a filter leaves it out.
    private func timelineRow(_ record: SegmentRecord, _ filters: TimelineFilters, extraKinds: [String]) throws -> JSONValue? {
        if filters.entity == nil, record.operationCount > Self.summaryOperationLimit {
            let header = try store.saveHeader(record)
            if let author = filters.author, header.author != author { return nil }
            if let context = filters.context, header.contextName != context { return nil }
            if let kind = filters.kind, !InspectorTimeline.kinds(header.groups, extra: extraKinds).contains(kind) { return nil }
            return InspectorTimeline.row(header, operations: record.operationCount, extraKinds: extraKinds)
        }
        let request = PersistentHistoryRequest(after: PersistentHistoryToken(sequence: record.sequence - 1),
                                               authors: filters.author.map { [$0] }, contextNames: filters.context.map { [$0] },
                                               entityNames: filters.entity.map { [$0] })
        guard let transaction = try store.history(request, through: record.sequence).first else { return nil }
        if let kind = filters.kind, !InspectorTimeline.kinds(transaction.groups, extra: extraKinds).contains(kind) { return nil }
        return InspectorTimeline.row(transaction, operations: record.operationCount, extraKinds: extraKinds)
    }

    /// `GET /api/timeline/chart`: saves per time slice over the whole retained log, for
    /// the timeline's chart, from the group table (no segment is decoded).
    ///
    /// Parameters: `buckets` (1–200, default 60).
    /// - Complexity: O(groups in the log), one row of a few bytes each.
    package func timelineChart(_ parameters: InspectorParameters) throws -> JSONValue {
        let count = try parameters.integer("buckets", in: 1...200, default: 60)
        return try serialized {
            try store.catchUp()
            var times: [UInt64: Date] = [:]
            var kinds: [UInt64: Set<String>] = [:]
            for group in try store.groupRecords() {
                times[group.sequence] = group.timestamp
                kinds[group.sequence, default: []].insert(ToolLogText.kindName(group.info.kind))
            }
            guard let first = times.values.min(), let last = times.values.max() else {
                return .fields(["start": .null, "end": .null, "buckets": .array([])])
            }
            let span = max(last.timeIntervalSince(first), 0.001)
            var saves = Array(repeating: 0, count: count)
            var undos = Array(repeating: 0, count: count)
            var lastSequence = Array(repeating: UInt64(0), count: count)
            for (sequence, time) in times {
                let index = min(count - 1, Int(time.timeIntervalSince(first) / span * Double(count)))
                saves[index] += 1
                if kinds[sequence]?.isDisjoint(with: ["undo", "redo"]) == false { undos[index] += 1 }
                lastSequence[index] = max(lastSequence[index], sequence)
            }
            return .fields([
                "start": InspectorValues.time(first),
                "end": InspectorValues.time(last),
                "buckets": .array((0..<count).map { index in
                    .fields(["saves": .int(saves[index]), "undoRedo": .int(undos[index]),
                             "lastSequence": lastSequence[index] > 0 ? .int(lastSequence[index]) : .null])
                }),
            ])
        }
    }

    /// `GET /api/save?sequence=N`: one save with every change's old and new values.
    /// - Throws: 404 when the log holds no save N (never saved, or dropped by retention).
    package func save(_ parameters: InspectorParameters) throws -> JSONValue {
        guard let sequence = try parameters.sequence("sequence"), sequence > 0 else {
            throw InspectorError.badRequest("The parameter sequence is missing: it takes a save's sequence number, 1 or more.")
        }
        return try serialized {
            try store.catchUp()
            let request = PersistentHistoryRequest(after: PersistentHistoryToken(sequence: sequence - 1))
            guard let transaction = try store.history(request, through: sequence).first else {
                throw InspectorError.notFound("The log holds no save \(sequence) (the last is \(try store.logPosition.last); compaction's retention may have dropped older ones).")
            }
            let operations = try store.segmentRecords(in: sequence...sequence).first?.operationCount ?? 0
            var row = InspectorTimeline.row(transaction, operations: operations, extraKinds: try extraKinds(of: sequence))
            if case .object(var members) = row {
                members.append(.init("changeCount", .int(transaction.changes.count)))
                members.append(.init("changes", .array(transaction.changes.prefix(Self.changeListLimit).map(InspectorTimeline.json))))
                row = .object(members)
            }
            return row
        }
    }

    /// `GET /api/compare?from=A&to=B`: what saves A+1 through B did together: each object
    /// inserted, deleted or changed, with its value after A and after B (0 is the empty
    /// document).
    /// - Throws: 400 when `from` is not before `to` or the span passes ``compareLimit``.
    package func compare(_ parameters: InspectorParameters) throws -> JSONValue {
        let from = try parameters.sequence("from") ?? 0
        guard let to = try parameters.sequence("to") else { throw InspectorError.badRequest("The parameter to is missing: it takes a save's sequence number.") }
        guard from < to else { throw InspectorError.badRequest("from (\(from)) must be an earlier save than to (\(to)).") }
        guard to - from <= Self.compareLimit else {
            throw InspectorError.badRequest("A comparison spans at most \(Self.compareLimit) saves; \(from) to \(to) is \(to - from).")
        }
        return try serialized {
            try store.catchUp()
            let last = try store.logPosition.last
            guard to <= last else { throw InspectorError.notFound("There is no save \(to); the last is \(last).") }
            let transactions = try store.history(PersistentHistoryRequest(after: PersistentHistoryToken(sequence: from)), through: to)
            var folds = InspectorComparison()
            for transaction in transactions { folds.add(transaction.changes) }
            let changes = folds.changes()
            return .fields([
                "from": .int(from), "to": .int(to), "saves": .int(transactions.count),
                "inserted": .int(changes.filter { $0.kind == .insert }.count),
                "deleted": .int(changes.filter { $0.kind == .delete }.count),
                "updated": .int(changes.filter { $0.kind == .update }.count),
                "changeCount": .int(changes.count),
                "changes": .array(changes.prefix(Self.changeListLimit).map(InspectorTimeline.json)),
            ])
        }
    }
}

/// The timeline's filters; nil lets every save through.
struct TimelineFilters {
    var author: String?
    var context: String?
    var entity: String?
    var kind: String?
}
