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
    /// `existing` answers for inserted records, as ``OverlayPatch/apply(_:base:existing:giveBack:)`` says.
    func apply(_ operation: ChangeOperation, to patch: inout OverlayPatch, inWrite: Bool,
               existing: ((ManagedObjectID) throws -> Bool)? = nil) throws {
        for key in patch.textsToSeed(for: operation) {
            patch.seedText(key, try inWrite ? textInWrite(key) : currentText(key))
        }
        try patch.apply(operation, base: { try inWrite ? self.valuesInWrite($0) : self.currentValues($0) }, existing: existing)
    }

    private func hasTextTable() throws -> Bool {
        try !connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").rows([.text(Self.textTable)]).isEmpty
    }

    func snapshotText(_ key: TextKey) throws -> TextSequence? {
        guard try hasTextTable() else { return nil }
        let rows = try connection.prepare("SELECT state FROM \(Self.textTable) WHERE entity = ? AND pk = ? AND attribute = ?")
            .rows([.text(key.id.entity.rootEntity.name), .integer(key.id.primaryKey), .text(key.id.entity.slotNames[key.slot])])
        guard case .blob(let bytes)? = rows.first?.first else { return nil }
        do {
            // A packed state may leave its characters to the record's column (§21), which
            // holds them as the compaction that wrote both left them: a splice since would
            // have put the text in the overlay.
            return try TextCoding.decodeSequence(bytes) {
                guard let values = try self.snapshotValues(key.id), key.slot < values.count else { return nil }
                return values[key.slot].textValue
            }
        } catch var error as StrataError {
            error.message = "The text \(key.id.entity.name).\(key.id.entity.slotNames[key.slot]) of \(key.id) in the snapshot is damaged: \(error.message)"
            throw error
        }
    }

    /// The snapshot's texts of records the overlay deletes that it does not hold itself:
    /// read before compaction deletes their rows, so that ``writeTexts(_:)`` writes them
    /// with their characters, which a packed state may have left to the column (§21).
    func textsOfDeletedRecords() throws -> [TextKey: TextSequence] {
        guard try hasTextTable() else { return [:] }
        var texts: [TextKey: TextSequence] = [:]
        for id in overlay.deleted {
            for slot in id.entity.textSlots where overlay.texts[TextKey(id: id, slot: slot)] == nil {
                let key = TextKey(id: id, slot: slot)
                if let text = try snapshotText(key) { texts[key] = text }
            }
        }
        return texts
    }

    /// Writes the overlay's texts, and `others`, into the snapshot (compaction): a text that
    /// is all first value loses its row, which its column replaces. In a document of format 2
    /// or later the state is packed (§21), its characters left to the column when the row
    /// compaction wrote holds exactly them; the document then has format 3. Returns whether
    /// it raised the format.
    func writeTexts(_ others: [TextKey: TextSequence] = [:]) throws -> Bool {
        guard !overlay.texts.isEmpty || !others.isEmpty else { return false }
        try connection.execute(Self.createTextTable)
        let replace = try connection.prepare("INSERT OR REPLACE INTO \(Self.textTable) (entity, pk, attribute, state) VALUES (?, ?, ?, ?)")
        let delete = try connection.prepare("DELETE FROM \(Self.textTable) WHERE entity = ? AND pk = ? AND attribute = ?")
        let packs = meta.formatVersion >= DocumentFile.createdFormatVersion
        var packed = false
        for (key, text) in overlay.texts.merging(others, uniquingKeysWith: { mine, _ in mine }) {
            let names: [SQLiteValue] = [.text(key.id.entity.rootEntity.name), .integer(key.id.primaryKey), .text(key.id.entity.slotNames[key.slot])]
            if text.isFirstValueOnly {
                try delete.run(names)
                continue
            }
            var state: [UInt8]?
            if packs {
                let inColumn = !overlay.deleted.contains(key.id) && overlay.rows[key.id].map { key.slot < $0.count && $0[key.slot].textValue == text.string } == true
                state = TextStatePacking.encode(text, charactersInColumn: inColumn)
            }
            packed = packed || state != nil
            try replace.run(names + [.blob(state ?? TextCoding.encode(text))])
        }
        guard packed, meta.formatVersion < DocumentFile.packedFormatVersion else { return false }
        try DocumentFile.raiseToPackedFormat(connection)
        return true
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
