import Foundation

/// A store that keeps the identities of its texts' characters (docs/TEXT.md), so that a
/// context editing a text it read edits the same characters every other replica holds.
///
/// A store without it hands a context only the text's string, which the context then
/// takes as a first value: right for a store no one else edits.
package protocol TextStoring: AnyObject {
    /// The text of `id` at `slot` with its characters' identities; nil when the store
    /// holds no such record or only its string.
    func textSequence(for id: ManagedObjectID, slot: Int) throws -> TextSequence?
}

extension PersistentStoreCoordinator {
    /// The text of `id` at `slot` with its characters' identities, from the store that
    /// holds the record; nil when that store records no identities.
    func textSequence(for id: ManagedObjectID, slot: Int) throws -> TextSequence? {
        guard let store = try store(for: id.entity) as? any TextStoring else { return nil }
        return try store.textSequence(for: id, slot: slot)
    }
}
