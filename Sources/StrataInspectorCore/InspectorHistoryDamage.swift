import Strata

/// Damage the document's history holds while its current state is sound: segments that
/// compaction already folded into the snapshot (so opening, which reads only the later
/// segments, never meets them) but whose stored bytes fail their checksums or do not
/// decode, as `strata-log verify` reports them. The inspector then opens the document
/// read-only as always, with a banner naming the damaged saves, instead of refusing it;
/// damage in a segment the snapshot still needs stops the open with the CLI's message
/// (docs/INSPECTOR.md, "Safety").
struct InspectorHistoryDamage {
    /// The message for each damaged save, by sequence.
    var segments: [UInt64: String] = [:]

    /// How many segment rows the scan reads at a time.
    static let window: UInt64 = 512

    /// Checks every retained segment up to the compacted one, a window at a time: its log
    /// row, its LZ4 frame and checksum, and its header (`DocumentStore.saveHeader(_:)`).
    /// - Complexity: O(bytes of the compacted segments), read once when the inspector opens
    ///   the document and not kept.
    static func scan(_ store: DocumentStore) throws -> InspectorHistoryDamage {
        var damage = InspectorHistoryDamage()
        let (last, compacted) = try store.logPosition
        let high = min(last, compacted)
        var low: UInt64 = 1
        while low <= high {
            let top = min(high, low + window - 1)
            var records: [SegmentRecord] = []
            do {
                records = try store.segmentRecords(in: low...top)
            } catch let error as StrataError where error.code == .corruptSegment {
                // One malformed row fails its window; read the rows one by one to name it.
                for sequence in low...top {
                    do {
                        records += try store.segmentRecords(in: sequence...sequence)
                    } catch let error as StrataError where error.code == .corruptSegment {
                        damage.segments[sequence] = error.message
                    }
                }
            }
            for record in records {
                do {
                    _ = try store.saveHeader(record)
                } catch let error as StrataError where error.code == .corruptSegment {
                    damage.segments[record.sequence] = error.message
                }
            }
            low = top + 1
        }
        return damage
    }

    /// The `historyDamage` field of `/api/document`: null when the history is sound.
    var json: JSONValue {
        guard !segments.isEmpty else { return .null }
        let sorted = segments.keys.sorted()
        return .fields([
            "segments": .array(sorted.prefix(100).map { .int($0) }),
            "count": .int(sorted.count),
            "message": .string("The document's history is damaged in \(sorted.count == 1 ? "save \(sorted[0])" : "\(sorted.count) saves (the first \(sorted[0]))"); its current state is sound and shown read-only. Those saves, time travel across them and undo cannot be shown (`strata-log verify` lists the damage)."),
            "first": .string(segments[sorted[0]] ?? ""),
        ])
    }
}
