import Foundation

extension DocumentStore {
    /// A computed dictionary fetch answered by SQLite over the snapshot tables, or nil
    /// when SQL cannot give the whole answer (uncompacted changes in the overlay, a
    /// construct the translator leaves to memory): the caller then computes it in memory.
    func computedDictionaries(_ request: FetchRequest, entity: EntityDescription) throws -> [[String: PropertyValue]]? {
        nil
    }
}
