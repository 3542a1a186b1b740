import Foundation

extension DocumentStore {
    /// Creates the fetch indexes and uniqueness-constraint indexes the model declares and
    /// the document lacks, and makes a non-unique constraint index UNIQUE once its records
    /// allow: an existing document gains the indexes added to its model
    /// (neither changes the model's version hash, so the same document opens with either
    /// model). Runs when a writable document opens, in a write transaction of its own.
    /// - Throws: `.invalidModel` for an R-tree index without SQLite's R-tree module;
    ///   SQLite's errors (a busy or full disk) as the open's error.
    func addMissingIndexes() throws {
        guard !schema.fetchIndexes.isEmpty || schema.tables.values.contains(where: { table in
            table.root.selfAndDescendants.contains { !$0.uniquenessConstraints.isEmpty }
        }) else { return }
        try writing {
            try withOpenState { state in
                try schema.createMissingFetchIndexes(on: state.connection)
                try schema.reconcileUniquenessIndexes(on: state.connection)
            }
        }
    }
}
