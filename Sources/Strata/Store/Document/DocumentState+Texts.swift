import Foundation

/// Texts with their characters' identities in a document (docs/TEXT.md, "In a document"):
/// the uncompacted segments' in the overlay, the compacted ones in the snapshot's
/// `strata_text` table (docs/FORMAT.md §18). A text whose characters are all its first
/// value has no row there: its column's string says everything.
extension DocumentState {
    static let textTable = "strata_text"
    /// The table's schema (docs/FORMAT.md §18).
    static let createTextTable = """
        CREATE TABLE IF NOT EXISTS strata_text (entity TEXT NOT NULL, pk INTEGER NOT NULL, attribute TEXT NOT NULL,
            state BLOB NOT NULL, PRIMARY KEY (entity, pk, attribute)) WITHOUT ROWID
        """

    /// The committed text of a record's text attribute: the overlay's, else the snapshot's;
    /// nil when the document holds only its string (a first value).
    /// A deleted record keeps its texts: an undo of its delete inserts it again with them.
    func currentText(_ key: TextKey) throws -> TextSequence? {
        if let text = overlay.texts[key] { return text }
        return try snapshotText(key)
    }

    /// The text as the write in progress sees it: its earlier patches', else committed.
    func textInWrite(_ key: TextKey) throws -> TextSequence? {
        if let patches = heldWrite?.patches {
            for patch in patches.reversed() {
                if let text = patch.texts[key] { return text }
            }
        }
        return try currentText(key)
    }

    /// Applies `operation` to `patch` over what is committed (in the write in progress,
    /// with `inWrite`): its records' rows and — for a splice, or a record inserted again —
    /// its texts' characters, which the patch takes when it lacks them.
    func apply(_ operation: ChangeOperation, to patch: inout OverlayPatch, inWrite: Bool) throws {
        for key in patch.textsToSeed(for: operation) {
            patch.seedText(key, try inWrite ? textInWrite(key) : currentText(key))
        }
        try patch.apply(operation) { try inWrite ? self.valuesInWrite($0) : self.currentValues($0) }
    }

    private func hasTextTable() throws -> Bool {
        try !connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").rows([.text(Self.textTable)]).isEmpty
    }

    private func snapshotText(_ key: TextKey) throws -> TextSequence? {
        guard try hasTextTable() else { return nil }
        let rows = try connection.prepare("SELECT state FROM \(Self.textTable) WHERE entity = ? AND pk = ? AND attribute = ?")
            .rows([.text(key.id.entity.rootEntity.name), .integer(key.id.primaryKey), .text(key.id.entity.slotNames[key.slot])])
        guard case .blob(let bytes)? = rows.first?.first else { return nil }
        do {
            return try TextCoding.decodeSequence(bytes)
        } catch var error as StrataError {
            error.message = "The text \(key.id.entity.name).\(key.id.entity.slotNames[key.slot]) of \(key.id) in the snapshot is damaged: \(error.message)"
            throw error
        }
    }

    /// Writes the overlay's texts into the snapshot (compaction): a text that is all first
    /// value loses its row, which its column replaces.
    func writeTexts() throws {
        guard !overlay.texts.isEmpty else { return }
        try connection.execute(Self.createTextTable)
        let replace = try connection.prepare("INSERT OR REPLACE INTO \(Self.textTable) (entity, pk, attribute, state) VALUES (?, ?, ?, ?)")
        let delete = try connection.prepare("DELETE FROM \(Self.textTable) WHERE entity = ? AND pk = ? AND attribute = ?")
        for (key, text) in overlay.texts {
            let names: [SQLiteValue] = [.text(key.id.entity.rootEntity.name), .integer(key.id.primaryKey), .text(key.id.entity.slotNames[key.slot])]
            if text.isFirstValueOnly {
                try delete.run(names)
            } else {
                try replace.run(names + [.blob(TextCoding.encode(text))])
            }
        }
    }
}

extension DocumentStore: TextStoring {
    /// The text of a record with its characters' identities, as the document holds it now.
    package func textSequence(for id: ManagedObjectID, slot: Int) throws -> TextSequence? {
        try withOpenState { state in
            if let text = try state.currentText(TextKey(id: id, slot: slot)) { return text }
            guard let values = try state.currentValues(id), slot < values.count else { return nil }
            return TextSequence(base: values[slot].textValue)
        }
    }
}
