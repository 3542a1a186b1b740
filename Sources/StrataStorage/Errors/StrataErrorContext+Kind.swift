extension StrataError.Context {
    /// Which of the failures an error code covers an error is, where a caller acts on the
    /// difference (the tools choose their exit status by it). The raw values are stable.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        // MARK: Opening and closing a document

        /// The file is not an SQLite file.
        case notSQLite
        /// The file is an SQLite database but not a Strata document (or its first pages
        /// lost what said so).
        case notStrata
        /// The document is Strata's but damaged.
        case damaged
        /// The document has a newer format than this build reads.
        case newerFormat
        /// Another process holds the document's lock.
        case busy
        /// The disk is full.
        case diskFull
        /// The file or its directory may not be read or written.
        case permission
        /// Another input/output failure.
        case io
        /// A read-only open needs a write first (a write-ahead log to finish).
        case needsWrite
        /// The document was opened read-only.
        case readOnly
        /// The document was saved but its write-ahead log could not be folded back in.
        case checkpointIncomplete
        /// The path names a directory, FIFO, device or socket, not a regular file.
        case notRegularFile
        /// The file the command would create exists.
        case exists

        // MARK: The log and history

        /// The log inserts an object that already exists (``StrataError/Context/object``).
        case duplicateInsert
        /// No save of the document has that query generation.
        case generationUnknown
        /// Compaction folded the query generation's save into the snapshot.
        case generationCompacted
        /// A query generation needs a context whose store is a document.
        case noDocumentStore
        /// The context's stores are several documents and the token names none.
        case ambiguousToken
        /// The token belongs to another document.
        case otherDocument
        /// A child context cannot pin a query generation of its own.
        case childContext

        // MARK: Objects and values

        /// An expression divided by zero.
        case divisionByZero
        /// The object's context was released.
        case contextReleased
        /// A child context's save would overwrite what its parent changed.
        case parentChanged

        // MARK: Servers

        /// A write may not have reached the server: the connection failed before it said
        /// whether it committed.
        case notCommitted
    }

    /// Which bytes of a segment an offset counts into.
    public enum Layer: String, Sendable, Hashable, CaseIterable {
        /// The LZ4 frame the segment is stored as.
        case lz4Frame = "lz4"
        /// The segment's raw (decompressed) body.
        case segmentBody = "body"
    }
}
