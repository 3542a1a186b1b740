import CSQLite

extension SQLiteConnection {
    /// Writes `bytes` over the start of the blob in `column` of the row `row` of `table`,
    /// through SQLite's incremental blob I/O (the row was inserted with `zeroblob(n)`,
    /// n ≥ `bytes.count`).
    ///
    /// Why not bind the bytes: inserting a bound blob makes SQLite serialize the whole row
    /// into one buffer first, a second copy of a segment body that is tens of megabytes
    /// after a bulk save (docs/ARCHITECTURE.md, "Saves"). A zeroblob row is written page
    /// by page instead.
    ///
    /// ```swift
    /// try connection.prepare("INSERT INTO t (id, body) VALUES (?, zeroblob(?))").run([.integer(1), .integer(3)])
    /// try connection.writeBlob([1, 2, 3], table: "t", column: "body", row: 1)
    /// ```
    /// - Throws: ``StrataError`` `.sqlite` naming the table, column and row when the row
    ///   does not exist, the blob is shorter than `bytes`, or the write fails.
    package func writeBlob(_ bytes: [UInt8], table: String, column: String, row: Int64) throws {
        let what = "writing \(bytes.count) bytes into \(table).\(column) of row \(row)"
        let database = try liveHandle(for: what)
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(database, "main", table, column, row, 1, &blob)
        guard opened == SQLITE_OK, let blob else {
            if let blob { sqlite3_blob_close(blob) }
            throw located(StrataError.sqlite(resultCode: opened, database: database, sql: nil), what)
        }
        // SQLite's blobs stop at SQLITE_MAX_LENGTH (1e9 bytes by default), below Int32.max.
        var code = bytes.count > Int(Int32.max) ? SQLITE_TOOBIG : SQLITE_OK
        if code == SQLITE_OK, !bytes.isEmpty {
            code = bytes.withUnsafeBytes { raw in sqlite3_blob_write(blob, raw.baseAddress, Int32(raw.count), 0) }
        }
        let closed = sqlite3_blob_close(blob)
        if code == SQLITE_OK { code = closed }
        guard code == SQLITE_OK else { throw located(StrataError.sqlite(resultCode: code, database: database, sql: nil), what) }
    }

    /// A blob error saying where it happened (no SQL names the place: a blob handle has none).
    private func located(_ error: StrataError, _ what: String) -> StrataError {
        var error = error
        error.message = "Failed \(what): \(error.message)"
        error.context.operation = what
        return error
    }
}
