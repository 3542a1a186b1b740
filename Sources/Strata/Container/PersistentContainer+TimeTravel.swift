import Foundation

extension PersistentContainer {
    /// Time travel: the document as it was right after its segment `sequence`, replayed from
    /// its log into a new document at `destination` and opened read-only in a container of
    /// its own. The replayed document is in the model version the document had at that
    /// point: before a migration, the old model (which the document keeps), so the returned
    /// container's ``model`` may differ from this one's.
    ///
    /// ```swift
    /// let past = try container.timeTravel(toSegment: 12, copyingTo: scratchURL)
    /// defer { try? past.close() }
    /// let count = try past.viewContext.count(for: FetchRequest(entityName: "Book"))
    /// ```
    /// - Parameters:
    ///   - sequence: the last segment to replay (``DocumentStore/segmentRecords(in:)``).
    ///   - destination: where the replayed document is written (replaced when it exists).
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` for a container without a file, a
    ///   segment past the last, a history dropped by retention, or a custom migration stage
    ///   the document has no record of; the errors of replaying and opening.
    public func timeTravel(toSegment sequence: UInt64, copyingTo destination: URL) throws -> PersistentContainer {
        guard let url else {
            throw StrataError(.invalidArgument, "Time travel needs a container with a document file; \(name) is in memory.")
        }
        var configuration = (store as? DocumentStore)?.configuration ?? DocumentStore.Configuration()
        configuration.isReadOnly = true
        try DocumentReplay.replay(url, through: sequence, to: destination, overwrite: true, settings: configuration)
        let model = try DocumentStore.storedModel(at: destination, configuration: configuration)
        var options = Options()
        options.configuration = configuration
        options.configuration.shouldMigrateStoreAutomatically = false
        options.restoresUndoHistory = false
        options.viewContextConcurrencyType = .confinement
        return try PersistentContainer(name: name, model: model, url: destination, options: options)
    }
}
