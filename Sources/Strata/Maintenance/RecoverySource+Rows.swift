import Foundation

/// How recovery reads the log table without trusting it (docs/RELIABILITY.md, "Damaged
/// documents"): a segment's body is the only thing it keeps, and only when its LZ4 content
/// checksum holds; the body itself says its sequence and time (docs/FORMAT.md §2), so a
/// damaged `seq`, `time` or count column — or a damaged schema entry that renames one —
/// costs nothing.
extension RecoverySource {
    /// Reads every segment row SQLite can still give, by position rather than by column
    /// name (`SELECT rowid, *`), all at once or, when a page is damaged, row by row.
    /// Fills ``records`` (by the sequence their bodies say, oldest first) and
    /// ``unreadable`` (rows whose body fails its checksum or cannot be read, and sequences
    /// missing between the first and the last segment found).
    mutating func readSegments() {
        var found: [UInt64: SegmentRecord] = [:]
        var failed: [UInt64: String] = [:]
        let table = "strata_segment"
        if let rows = try? connection.prepare("SELECT rowid, * FROM \(table)").rows() {
            for row in rows { consider(row, found: &found, failed: &failed) }
        } else {
            // A damaged page: the keys SQLite can still list, then each row alone.
            for rowid in Self.rowids(connection, table: table) {
                do {
                    for row in try connection.prepare("SELECT rowid, * FROM \(table) WHERE rowid = ?").rows([.integer(rowid)]) {
                        consider(row, found: &found, failed: &failed)
                    }
                } catch let error as StrataError {
                    failed[UInt64(max(rowid, 0))] = "SQLite cannot read its row (\(Self.shortened(error.message)))"
                } catch {
                    failed[UInt64(max(rowid, 0))] = "SQLite cannot read its row"
                }
            }
        }
        // A row that failed under one key while a row with an intact body has that
        // sequence was a damaged key, not a lost segment.
        for sequence in found.keys { failed[sequence] = nil }
        records = found.keys.sorted().compactMap { found[$0] }
        unreadable = failed
        let tableReads = Self.tableReads(connection, table: table)
        if !failed.isEmpty || !tableReads { carveUnreadableSegments(anySequence: records.isEmpty && !tableReads) }
        let known = Set(records.map(\.sequence)).union(unreadable.keys)
        if let first = known.min(), let last = known.max(), last - first < 1 << 24 {
            for sequence in first...last where !known.contains(sequence) {
                unreadable[sequence] = "its row is missing from the log table (a damaged page of it)"
            }
        }
        if records.isEmpty, unreadable.isEmpty, !tableReads {
            unreadable[0] = "SQLite cannot read the log table"
        }
    }

    /// Keeps a row's body when its checksum holds and its header reads; otherwise records
    /// the row's key as a damaged segment.
    private func consider(_ row: [SQLiteValue], found: inout [UInt64: SegmentRecord], failed: inout [UInt64: String]) {
        guard case .integer(let rowid)? = row.first else { return }
        let key = UInt64(max(rowid, 0))
        let columns = row.dropFirst()
        // The body is the table's last column; a damaged record header can move it.
        let candidates = columns.reversed().compactMap { value -> [UInt8]? in
            if case .blob(let bytes) = value { bytes } else { nil }
        }
        guard !candidates.isEmpty else {
            failed[key] = failed[key] ?? "its row holds no body"
            return
        }
        var reason = "its body is damaged"
        for body in candidates {
            do {
                let raw = try LZ4Frame.decompress(body, maxContentSize: settings.maxSegmentSize)
                let header = try Self.bodyHeader(raw)
                guard found[header.sequence] == nil else { return }
                // The row's time is kept when it agrees with the body's (which has
                // millisecond precision); otherwise the body's is the truth.
                var time = header.time
                if columns.count >= 2, case .real(let stored) = columns[columns.startIndex + 1], abs(stored - time) < 0.001 { time = stored }
                var groups = header.groups, operations = 0
                if columns.count == 6, case .integer(let storedGroups) = columns[columns.startIndex + 2],
                   case .integer(let storedOperations) = columns[columns.startIndex + 3], storedGroups == groups {
                    groups = Int(storedGroups)
                    operations = Int(storedOperations)
                }
                found[header.sequence] = SegmentRecord(
                    sequence: header.sequence, timestamp: Date(timeIntervalSince1970: time), groupCount: groups,
                    operationCount: operations, rawSize: raw.count, body: body, isCompacted: header.sequence <= compactedThrough)
                return
            } catch let error as StrataError {
                reason = error.message
            } catch {
                reason = "\(error)"
            }
        }
        failed[key] = failed[key] ?? (reason.hasPrefix("Segment") ? reason : "Segment \(key) is corrupt: \(reason)")
    }

    /// The sequence, time (seconds since 1970) and group count a raw body starts with
    /// (docs/FORMAT.md §2).
    static func bodyHeader(_ raw: [UInt8]) throws -> (sequence: UInt64, time: Double, groups: Int) {
        var reader = ByteReader(raw)
        guard try reader.readRaw(count: SegmentFormat.magic.count) == SegmentFormat.magic else {
            throw reader.failure("bad magic, not a Strata segment body", at: 0)
        }
        _ = try reader.readVarint()
        let sequence = try reader.readVarint()
        let milliseconds = try reader.readZigzag()
        let groups = try reader.readVarint()
        guard sequence > 0, sequence <= UInt64(Int64.max), groups <= UInt64(Int.max) else {
            throw reader.failure("sequence \(sequence) or group count \(groups) out of range", at: 4)
        }
        return (sequence, Double(milliseconds) / 1000, Int(groups))
    }

    /// The row keys of `table` SQLite can list: all at once, or in steps from each key
    /// past the last one read, so a damaged page hides only its own rows.
    private static func rowids(_ connection: SQLiteConnection, table: String) -> [Int64] {
        if let rows = try? connection.prepare("SELECT rowid FROM \(table) ORDER BY rowid").rows() {
            return rows.compactMap { if case .integer(let id)? = $0.first { id } else { nil } }
        }
        var ids: [Int64] = []
        var after = Int64.min
        while ids.count < 1 << 24,
              let row = try? connection.prepare("SELECT rowid FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT 1").rows([.integer(after)]).first,
              case .integer(let id)? = row.first {
            ids.append(id)
            after = id
        }
        return ids
    }

    private static func tableReads(_ connection: SQLiteConnection, table: String) -> Bool {
        (try? connection.prepare("SELECT count(*) FROM \(table)").rows()) != nil
    }

    /// An SQLite message cut to a sentence's length, for a reason shown per segment.
    private static func shortened(_ message: String) -> String {
        message.count > 160 ? String(message.prefix(160)) + "…" : message
    }
}
