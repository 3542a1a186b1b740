import Foundation

extension DocumentStore {
    /// Creates the fetch indexes the model declares and the document lacks: an existing
    /// document gains the indexes added to its model (they do not change the model's
    /// version hash, so the same document opens with either model). Runs when a writable
    /// document opens, in a write transaction of its own.
    /// - Throws: `.invalidModel` for an R-tree index without SQLite's R-tree module;
    ///   SQLite's errors (a busy or full disk) as the open's error.
    func addMissingFetchIndexes() throws {
        guard !schema.fetchIndexes.isEmpty else { return }
        try writing {
            try withOpenState { state in try schema.createMissingFetchIndexes(on: state.connection) }
        }
    }
}
