import Foundation

extension StrataError {
    /// The segment sequence number a log problem is in (`.corruptSegment`, a replay), or nil.
    public var segment: UInt64? { context.segment }

    /// The byte offset of a log problem: into the LZ4 frame when ``isInCompressedFrame``,
    /// else into the segment's raw body; nil when the error has none.
    public var byteOffset: Int? { context.offset }

    /// Whether ``byteOffset`` counts into the stored LZ4 frame rather than the raw body.
    public var isInCompressedFrame: Bool { context.layer == .lz4Frame }

    /// The file the error is about, or nil.
    public var path: String? { context.path }

    /// The entity a problem names (a model, validation or batch error), or nil.
    public var entityName: String? { context.entity }

    /// The property key a problem names, or nil.
    public var key: String? { context.key }

    /// The object a problem names, as its URI or short reference, or nil.
    public var objectDescription: String? { context.object }

    /// SQLite's primary result code for `.sqlite` and `.documentBusy` errors
    /// (`SQLITE_FULL` is 13, `SQLITE_CORRUPT` 11…), or nil.
    public var sqliteResultCode: Int32? { context.sqliteResultCode }

    /// SQLite's extended result code, or nil.
    public var sqliteExtendedResultCode: Int32? { context.sqliteExtendedCode }

    /// The SQL statement that failed (in full: the message quotes only its start), or nil.
    public var sql: String? { context.sql }

    /// The process that holds the document's lock, for `.documentBusy` when the system
    /// says, or nil.
    public var lockHolderProcessID: Int32? { context.processID }
}
