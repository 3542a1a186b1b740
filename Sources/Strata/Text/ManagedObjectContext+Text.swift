import Foundation

/// A text attribute of one object: the key of its state in a context or store.
struct TextKey: Hashable, Sendable {
    var id: ManagedObjectID
    var slot: Int
}

/// A text as one context holds it: its characters with their identities, and what changed
/// since the last flush.
struct ContextText {
    var sequence: TextSequence
    /// The string last written to the object's slot, sharing its buffer: while the slot
    /// holds this very string, `pending` is everything that changed since the flush.
    var written: String
    /// The steps made since the last flush, which it logs as one ``TextEdit``.
    var pending = TextEdit()
}

extension ManagedObjectContext {
    /// Replaces the characters `range` (Unicode scalars) of a text with `scalars`, as a
    /// change this context makes (docs/TEXT.md, "Operations").
    func replaceText(of object: ManagedObject, slot: Int, range: Range<Int>, with scalars: [Unicode.Scalar]) throws {
        try checkChangeCanRegisterUndo()
        try object.ensureLoaded()
        let key = TextKey(id: object.objectID, slot: slot)
        var text = try texts.removeValue(forKey: key) ?? loadText(of: object, slot: slot, value: object.storage[slot])
        // A whole value set since (O(1) when the slot still holds the text's string).
        noteDirectTextWrites(&text, object: object, slot: slot)
        guard range.lowerBound >= 0, range.upperBound <= text.sequence.count else {
            texts[key] = text
            let attribute = object.entity.slotNames[slot]
            throw StrataError(.invalidArgument,
                              "\(object.entity.name).\(attribute) has \(text.sequence.count) characters; the range \(range.lowerBound)..<\(range.upperBound) is outside them.",
                              context: .init { $0.entity = object.entity.name; $0.key = attribute })
        }
        willChange(object, slot: slot)
        // Where the range lies in the string, from the text's UTF-8 counts: O(log n), where
        // walking the string's scalars to it was O(n) per keystroke.
        let start = text.sequence.utf8Offset(ofShown: range.lowerBound)
        let end = range.isEmpty ? start : text.sequence.utf8Offset(ofShown: range.upperBound)
        for step in text.sequence.replace(at: range.lowerBound, length: range.count, with: scalars, peer: textPeer) {
            text.pending.append(step)
        }
        var value = takeString(of: object, slot: slot, &text)
        value.replace(utf8: start..<end, with: scalars)
        put(value, into: object, slot: slot, &text)
        texts[key] = text
    }

    /// The string a text shows in its object's slot, taken out of the slot and the text so
    /// that it is changed in place when nothing else holds it (the flush's old value of the
    /// slot usually does, the first time); the caller puts it back.
    private func takeString(of object: ManagedObject, slot: Int, _ text: inout ContextText) -> String {
        let value = text.written
        text.written = ""
        object.storage[slot] = .null
        return value
    }

    /// Puts a string taken by ``takeString(of:slot:_:)`` back, changed.
    private func put(_ value: String, into object: ManagedObject, slot: Int, _ text: inout ContextText) {
        object.storage[slot] = .string(value)
        text.written = value
    }

    /// Runs `body` with the text's characters as this context holds them now (loaded from
    /// the store on first use; a value set without splices taken in as splices).
    func withText<Result>(of object: ManagedObject, slot: Int, _ body: (TextSequence) throws -> Result) throws -> Result {
        try object.ensureLoaded()
        // A cursor follows restores, those of a restored undo history too.
        try readLoggedTextRestorations()
        let key = TextKey(id: object.objectID, slot: slot)
        var text = try texts.removeValue(forKey: key) ?? loadText(of: object, slot: slot, value: object.storage[slot])
        noteDirectTextWrites(&text, object: object, slot: slot)
        texts[key] = text
        return try body(text.sequence)
    }

    /// Applies a text edit as recorded (undo, redo, rollback): its insertions and deletions
    /// as any replica's, its restores as new characters of this context's; the edit as
    /// applied becomes part of the next flush's.
    func applyTextEdit(_ edit: TextEdit, to object: ManagedObject, slot: Int) throws {
        try object.ensureLoaded()
        guard slot < object.storage.count, object.entity.isText(slot: slot) else { return }
        // An undo or redo deletes what stands for a deleted character now, put back by
        // this context or by the restored history's undos (docs/TEXT.md, "Undo").
        try readLoggedTextRestorations()
        let key = TextKey(id: object.objectID, slot: slot)
        var text = try texts.removeValue(forKey: key) ?? loadText(of: object, slot: slot, value: object.storage[slot])
        defer { texts[key] = text }
        noteDirectTextWrites(&text, object: object, slot: slot)
        willChange(object, slot: slot)
        // The string follows each change as it is made (no rebuild of the whole text per
        // undo step); a step that fails leaves the ones before it applied, string and all.
        var value = takeString(of: object, slot: slot, &text)
        defer { put(value, into: object, slot: slot, &text) }
        let applied = try text.sequence.apply(edit, peer: textPeer) { offset, removed, inserted in
            value.replace(utf8: offset..<(offset + removed), with: inserted)
        }
        for step in applied.steps { text.pending.append(step) }
    }

    /// The edit of the object's text at `slot` since the last flush, which the flush logs;
    /// nil when nothing changed. A value written without splices (a whole string set,
    /// a refresh) becomes the fewest splices here.
    func takeTextEdit(of object: ManagedObject, slot: Int, old: PropertyValue) -> TextEdit? {
        let key = TextKey(id: object.objectID, slot: slot)
        guard var text = texts.removeValue(forKey: key) ?? (try? loadText(of: object, slot: slot, value: old)) else { return nil }
        noteDirectTextWrites(&text, object: object, slot: slot)
        let edit = text.pending
        text.pending = TextEdit()
        texts[key] = text
        if edit.isEmpty { return nil }
        textsWithLoggedSplices.insert(key)
        return edit
    }

    /// Turns a value written to the slot by any other path than splices into splices.
    func noteDirectTextWrites(_ text: inout ContextText, object: ManagedObject, slot: Int) {
        guard case .string(let value) = object.storage[slot] else {
            // NULL: the text is empty.
            if text.sequence.count > 0 { splice(&text, to: "") }
            return
        }
        if value.utf8.count == text.written.utf8.count && value == text.written { return }
        splice(&text, to: value)
    }

    private func splice(_ text: inout ContextText, to value: String) {
        if let (position, length, inserted) = TextSequence.difference(from: text.sequence.string, to: value) {
            for step in text.sequence.replace(at: position, length: length, with: inserted, peer: textPeer) {
                text.pending.append(step)
            }
        }
        text.written = value
    }

    /// A text's state when this context first edits it: the characters' identities as the
    /// store holds them (a record deleted there and inserted again here, by an undo of the
    /// delete, included), or — for a new object, or a store that records no identities —
    /// the value as a first value.
    private func loadText(of object: ManagedObject, slot: Int, value: PropertyValue) throws -> ContextText {
        let string = if case .string(let string) = value { string } else { "" }
        if !object.objectID.isTemporaryID, var sequence = try coordinator.textSequence(for: object.objectID, slot: slot),
           object.state.existsInStore || TextSequence.keeps(sequence, forInsertOf: value) {
            try readLoggedTextRestorations()
            keptTextRestorations.removeValue(forKey: TextKey(id: object.objectID, slot: slot))?.carried(into: &sequence)
            // Splices this context logged and has not saved (a text forgotten by a refresh, an
            // undo of unsaved edits) are not in the store's text yet: without them the next
            // splice would be given the identity of one of their characters again, and the
            // store would take it for a repeat (docs/TEXT.md, "In a context").
            guard try applyUnsavedSplices(of: object.objectID, slot: slot, to: &sequence) else {
                return upToDate(ContextText(sequence: sequence, written: string), of: object, slot: slot, value: value)
            }
            // Their net effect is in the slot already (a refresh logs the splices that revert
            // what it discards), over what the store held when the object's values were read:
            // a slot without a change of its own takes what others saved since; a value set
            // since becomes splices at the next flush, as any value written without them.
            return upToDate(ContextText(sequence: sequence, written: string), of: object, slot: slot, value: value)
        }
        return ContextText(sequence: TextSequence(base: string), written: string)
    }

    /// A text just read from the store whose string is not the value the object showed:
    /// others saved into it after the object's values were read (or the value was set
    /// without splices, not flushed yet). The text keeps the store's string with its
    /// characters, so that a splice changes both alike; an object whose slot has no change
    /// of its own shows it, as a fault fired now would (docs/TEXT.md, "In a context"), and a
    /// value set becomes splices against it, as at a flush. Costs the string once per load.
    private func upToDate(_ text: ContextText, of object: ManagedObject, slot: Int, value: PropertyValue) -> ContextText {
        let stored = text.sequence.string
        if stored == text.written { return text }
        if slot < object.storage.count, object.storage[slot] == value, object.committedOld?[slot] == nil, object.flushOld[slot] == nil {
            object.storage[slot] = .string(stored)
        }
        return ContextText(sequence: text.sequence, written: stored)
    }

    /// Applies to a text read from the store the splices of it this context logged and has
    /// not saved, in log order, as the store will at the save; false when there are none.
    func applyUnsavedSplices(of id: ManagedObjectID, slot: Int, to sequence: inout TextSequence) throws -> Bool {
        if log.unsaved.isEmpty { textsWithLoggedSplices.removeAll() }
        guard textsWithLoggedSplices.contains(TextKey(id: id, slot: slot)) else { return false }
        var applied = false
        for batch in log.unsaved {
            for case .splice(id, slot, let edit) in batch.operations {
                _ = try sequence.apply(edit, peer: TextSequence.basePeer, resolvingRestores: false)
                applied = true
            }
        }
        return applied
    }

    /// After a save: the object's edited texts as the store merged them with what others
    /// spliced in meanwhile, as committed values (docs/TEXT.md, "Merging").
    func adoptStoredTexts(of object: ManagedObject) {
        for slot in object.entity.textSlots where slot < object.storage.count {
            let key = TextKey(id: object.objectID, slot: slot)
            guard let edited = texts[key], var sequence = try? coordinator.textSequence(for: object.objectID, slot: slot) else { continue }
            if edited.pending.isEmpty, sequence.holdsSameCharacters(as: edited.sequence),
               case .string(let stored) = object.storage[slot], stored == edited.written {
                // The store merged nothing but this context's own splices: its text is the
                // context's, so the context keeps its characters, cursors and restorations
                // as they are, where reading the store's back rebuilt the whole string per
                // save (docs/TEXT.md, "In a context"). The slot may now share the store's
                // row: `written` follows it, so the next flush finds it unchanged in O(1).
                #if STRATA_INVARIANTS
                precondition(sequence.string == edited.sequence.string, "the store's text differs from the context's with the same characters")
                #endif
                texts[key]?.written = stored
                continue
            }
            edited.sequence.restorations.carried(into: &sequence)
            let value = sequence.string
            if object.storage[slot] != .string(value) { object.storage[slot] = .string(value) }
            if case .string(let stored) = object.storage[slot] { texts[key] = ContextText(sequence: sequence, written: stored) }
        }
    }

    /// At the flush that logs an object's insert: its texts start from the inserted values,
    /// as every store's do (``TextSequence/keeps(_:forInsertOf:)``); a text that shows them
    /// and has no edit since the last flush (the object deleted and inserted again by undo
    /// and redo) keeps its characters.
    func keepTextsForInsert(of object: ManagedObject) {
        for slot in object.entity.textSlots where slot < object.storage.count {
            let key = TextKey(id: object.objectID, slot: slot)
            guard let text = texts[key] else { continue }
            if !text.pending.isEmpty || !TextSequence.keeps(text.sequence, forInsertOf: object.storage[slot]) { texts[key] = nil }
        }
    }

    /// A fault's values were just read from the store: a text this context still holds for
    /// the record (kept after an earlier instance of it was released; a save it was not
    /// part of, after an undo, leaves it as it was) may lack what others spliced since, so
    /// it is read again with the values (docs/TEXT.md, "In a context"). Its unsaved logged
    /// splices, if any, are applied again when it is.
    func textsReadAgain(with object: ManagedObject) {
        forgetTexts(of: object.objectID)
    }

    /// Forgets the texts of `id` (refreshed, turned into a fault, or gone): their next edit
    /// starts from the store's characters.
    func forgetTexts(of id: ManagedObjectID) {
        guard !texts.isEmpty, !id.entity.textSlots.isEmpty else { return }
        for slot in id.entity.textSlots { forgetText(TextKey(id: id, slot: slot)) }
    }

    /// Forgets one text, keeping its restorations for its next load (the undo stack may
    /// still delete characters they put back).
    func forgetText(_ key: TextKey) {
        guard let text = texts.removeValue(forKey: key), !text.sequence.restorations.isEmpty else { return }
        keptTextRestorations[key, default: .init()].add(text.sequence.restorations)
    }

    /// Moves the texts of renamed records (a save's keys given in place, taken back after a
    /// failed save, or adopted from another context): `touches` says whether `remap` may
    /// change an ID.
    func renameTexts(touching touches: (ManagedObjectID) -> Bool, _ remap: (ManagedObjectID) -> ManagedObjectID) {
        for key in Array(textsWithLoggedSplices) where touches(key.id) {
            textsWithLoggedSplices.remove(key)
            textsWithLoggedSplices.insert(TextKey(id: remap(key.id), slot: key.slot))
        }
        guard !texts.isEmpty else { return }
        for key in Array(texts.keys) where touches(key.id) {
            let new = remap(key.id)
            guard new != key.id, let text = texts.removeValue(forKey: key) else { continue }
            texts[TextKey(id: new, slot: key.slot)] = text
        }
    }
}

