import Foundation

extension RecoverySource {
    /// The snapshot rows whose indexed values their table and their index disagree on, in
    /// the damaged file, as losses a salvage names (docs/RELIABILITY.md, "Damaged
    /// documents").
    ///
    /// A flipped byte inside a record leaves its page well-formed: SQLite's integrity check
    /// sees only that the index entry the record now needs is missing. With no history to
    /// replay, one of the two values is the one saved and nothing says which; the salvage
    /// keeps the table's and must say so. Both sides are read in rowid order, one row at a
    /// time, so a large table costs no memory.
    func indexDisagreements(in table: String) -> [String] {
        let quoted = SnapshotSchema.quote(table)
        let indexes = ((try? connection.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name"
        ).rows([.text(table)])) ?? []).compactMap { row -> String? in if case .text(let name)? = row.first { name } else { nil } }
        var found: [String] = []
        for index in indexes {
            let columns = ((try? connection.prepare("SELECT name FROM pragma_index_info(?)").rows([.text(index)])) ?? [])
                .compactMap { row -> String? in if case .text(let name)? = row.first { name } else { nil } }
            guard !columns.isEmpty else { continue }
            let list = columns.map(SnapshotSchema.quote).joined(separator: ", ")
            guard let fromTable = try? connection.prepare("SELECT rowid, \(list) FROM \(quoted) NOT INDEXED ORDER BY rowid"),
                  let fromIndex = try? connection.prepare("SELECT rowid, \(list) FROM \(quoted) INDEXED BY \(SnapshotSchema.quote(index)) ORDER BY rowid")
            else { continue }
            defer { fromTable.resetQuietly(); fromIndex.resetQuietly() }
            func next(_ statement: SQLiteStatement) -> [SQLiteValue]? {
                guard (try? statement.step()) == .row else { return nil }
                return (0...columns.count).map { statement.value(at: $0) }
            }
            var tableRow = next(fromTable), indexRow = next(fromIndex)
            while found.count < 20 {
                switch (tableRow, indexRow) {
                case (nil, nil):
                    break
                case let (row?, entry?) where Self.rowid(row[0]) == Self.rowid(entry[0]):
                    if row.dropFirst() != entry.dropFirst() {
                        found.append("\(table) row \(Self.rowid(row[0])): \(columns.joined(separator: ", ")) is \(Self.shown(row.dropFirst())) in the table but \(Self.shown(entry.dropFirst())) in its index \(index); the table's value was kept, and either may be the one saved")
                    }
                    tableRow = next(fromTable)
                    indexRow = next(fromIndex)
                    continue
                case let (row?, entry) where entry.map { Self.rowid(row[0]) < Self.rowid($0[0]) } ?? true:
                    found.append("\(table) row \(Self.rowid(row[0])): missing from its index \(index) (kept; its indexed values \(Self.shown(row.dropFirst())) may be damaged)")
                    tableRow = next(fromTable)
                    continue
                case let (_, entry?):
                    found.append("\(table) row \(Self.rowid(entry[0])): in its index \(index) (\(Self.shown(entry.dropFirst()))) but not in the table, whose row is lost")
                    indexRow = next(fromIndex)
                    continue
                default:
                    break
                }
                break
            }
        }
        return found
    }

    private static func rowid(_ value: SQLiteValue) -> Int64 {
        if case .integer(let key) = value { key } else { .max }
    }

    private static func shown(_ values: ArraySlice<SQLiteValue>) -> String {
        values.map { value in
            let text = "\(value)"
            return text.count > 40 ? String(text.prefix(40)) + "…" : text
        }.joined(separator: ", ")
    }
}
