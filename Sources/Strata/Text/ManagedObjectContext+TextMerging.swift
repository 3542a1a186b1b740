import Foundation

extension ManagedObjectContext {
    /// A refresh that keeps pending changes is about to read an object's record again
    /// (``refresh(_:mergeChanges:)``, a merge of others' saves): each of its texts with edits
    /// of this context's not saved yet takes in what others spliced into the store's text
    /// meanwhile, keeping those edits (docs/TEXT.md, "Merging before a save"). Returns the
    /// merged strings by slot, which the refresh puts in the slots in place of the pending
    /// values; a text it leaves out keeps its pending value, as any other attribute does.
    ///
    /// Called while the object's slots still hold the pending values: a value written
    /// without splices becomes splices first, so that nothing unflushed is lost.
    ///
    /// - Complexity: O(text) per text others changed (its string is read again); O(1) for
    ///   a text they did not.
    func mergeStoredTexts(into object: ManagedObject, pending: [String: PropertyValue]) -> [Int: String] {
        // A child context's texts stand on its parent's unsaved ones, not on the store's.
        guard parent == nil, !texts.isEmpty, !object.objectID.isTemporaryID else { return [:] }
        var merged: [Int: String] = [:]
        for slot in object.entity.textSlots where slot < object.storage.count && pending[object.entity.slotNames[slot]] != nil {
            let key = TextKey(id: object.objectID, slot: slot)
            guard var text = texts[key] else { continue }
            noteDirectTextWrites(&text, object: object, slot: slot)
            texts[key] = text
            guard let sequence = try? mergedSequence(of: key, keeping: text) else { continue }
            if sequence.holdsSameCharacters(as: text.sequence) {
                // Nobody else changed it: the context's characters, string and cursors stay.
                merged[slot] = text.written
                continue
            }
            var adopted = sequence
            text.sequence.restorations.carried(into: &adopted)
            let value = adopted.string
            texts[key] = ContextText(sequence: adopted, written: value, pending: text.pending)
            merged[slot] = value
        }
        return merged
    }

    /// The store's text of `key` with this context's unsaved edits of it applied on top —
    /// the splices logged since the last save, in log order, then the steps not flushed yet
    /// — as the store will apply them at the save. Every step names characters by identity,
    /// so the result holds exactly the context's characters and the ones others added, and
    /// it is what the store will hold after the save, whatever else it takes in first.
    /// - Throws: when a step names a character the store's text does not hold (the caller
    ///   then keeps the context's text as it is, and the save merges as before).
    private func mergedSequence(of key: TextKey, keeping text: ContextText) throws -> TextSequence? {
        guard var sequence = try coordinator.textSequence(for: key.id, slot: key.slot) else { return nil }
        _ = try applyUnsavedSplices(of: key.id, slot: key.slot, to: &sequence)
        if !text.pending.isEmpty {
            _ = try sequence.apply(text.pending, peer: TextSequence.basePeer, resolvingRestores: false)
        }
        return sequence
    }
}
