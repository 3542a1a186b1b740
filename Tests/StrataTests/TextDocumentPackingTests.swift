import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A typed document in the packed forms (docs/FORMAT.md §19–§21): its segments are version
/// 5, its typing groups are runs, its compacted text state is packed and leaves its
/// characters to the column; it reads back, undoes and redoes all after a reopen, and the
/// same document written in the forms before (format 2: version 4 segments, a row per group,
/// §18's state) still does.
@Suite struct TextDocumentPacking {
    static func configuration() -> DocumentStore.Configuration {
        var configuration = DocumentStore.Configuration()
        configuration.retention = .all
        configuration.turnOffAutomaticCompaction()
        configuration.compactsOnClose = false
        return configuration
    }

    /// What is typed: words at the end, a typo taken back, a word typed at the start, a
    /// deletion forward; each keystroke a flush named "Typing", a step per word.
    enum Key { case type(Character), backspace, caret(Int), delete }
    static let script: [Key] = {
        var keys: [Key] = []
        for round in 0..<12 {
            keys += "The quikc".map(Key.type) + [.backspace, .backspace] + "ck brown fox ".map(Key.type)
            if round % 3 == 2 { keys += [.caret(0)] + "Ah, ".map(Key.type) + [.caret(-1)] }
            if round % 4 == 3 { keys += [.caret(2), .delete, .delete, .caret(-1)] }
        }
        return keys
    }()

    /// Types the script into the note's body, saving every `perSave` keystrokes; returns the
    /// text and the number of undo steps.
    static func type(into note: ManagedObject, stack: DocumentStack, perSave: Int) throws -> String {
        var caret = 0
        var wasDeleting = false
        var previous: Character = " "
        for (index, key) in script.enumerated() {
            let text = Array(try note.text("body").unicodeScalars)
            var startsStep = false
            switch key {
            case .type(let character):
                startsStep = wasDeleting || (previous == " " && character != " ")
                stack.undo.coalescingInterval = startsStep ? 0 : .infinity
                try note.replaceCharacters(in: caret..<caret, with: String(character), forKey: "body")
                caret += 1
                wasDeleting = false
                previous = character
            case .backspace:
                stack.undo.coalescingInterval = wasDeleting ? .infinity : 0
                try note.replaceCharacters(in: (caret - 1)..<caret, with: "", forKey: "body")
                caret -= 1
                wasDeleting = true
            case .delete:
                stack.undo.coalescingInterval = wasDeleting ? .infinity : 0
                try note.replaceCharacters(in: caret..<(caret + 1), with: "", forKey: "body")
                wasDeleting = true
            case .caret(let position):
                caret = position < 0 ? text.count : position
                previous = " "
                wasDeleting = false
                continue
            }
            stack.undo.setActionName("Typing")
            if index % perSave == perSave - 1 { try stack.context.save() }
        }
        try stack.context.save()
        return try note.text("body")
    }

    /// Creates the typed document at `url`; returns its text and undo steps.
    static func makeDocument(_ url: URL) throws -> (text: String, steps: Int) {
        let stack = try DocumentStack.create(url, model: textNoteModel, configuration: configuration())
        let note = try stack.context.insertObject(forEntityName: "Note")
        try note.setValue(.string(""), forKey: "body")
        try stack.context.save()
        stack.undo.removeAllActions()
        let text = try type(into: note, stack: stack, perSave: 40)
        let steps = stack.undo.undoCount
        try stack.store.close()
        return (text, steps)
    }

    /// Opens the document and checks its text, then undoes all (to the empty note) and redoes
    /// all from the restored history.
    static func checkReopened(_ url: URL, text: String, steps: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stack = try DocumentStack.open(url, model: textNoteModel, configuration: configuration())
        defer { try? stack.store.close() }
        let note = try #require(try stack.context.fetch(FetchRequest(entityName: "Note")).first, sourceLocation: sourceLocation)
        #expect(try note.text("body") == text, sourceLocation: sourceLocation)
        try stack.context.restoreUndoHistory()
        #expect(stack.undo.undoCount == steps + 1, sourceLocation: sourceLocation)   // and the note's insert
        for _ in 0..<steps { try stack.undo.undo() }
        #expect(try note.text("body") == "", sourceLocation: sourceLocation)
        while stack.undo.canRedo { try stack.undo.redo() }
        #expect(try note.text("body") == text, sourceLocation: sourceLocation)
        stack.context.rollback()
    }

    static func segmentVersions(_ url: URL) throws -> [UInt8] {
        try sqlRows(url, "SELECT body FROM strata_segment ORDER BY seq").map { row in
            guard case .blob(let frame) = row[0] else { return 0 }
            return try LZ4Frame.decompress(frame, maxContentSize: 1 << 24)[4]
        }
    }

    @Test func aTypedDocumentIsPackedAndReadsBackUndoesAndRedoesAfterReopen() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (text, steps) = try Self.makeDocument(url)
        #expect(steps > 40)
        // The first segment inserts the note (no text edit: version 2); every typed one is 5.
        let versions = try Self.segmentVersions(url)
        #expect(versions.first == 2 && versions.dropFirst().allSatisfy { $0 == 5 }, "\(versions)")
        #expect(try sqlRows(url, "SELECT value FROM strata_meta WHERE key = 'formatVersion'") == [[.integer(3)]])
        // The typing groups are runs: far fewer rows than groups.
        let runRows = try sqlRows(url, "SELECT count(*), sum(count) FROM strata_group_run")
        let plainRows = try sqlRows(url, "SELECT count(*) FROM strata_group")
        guard case .integer(let runs) = runRows[0][0], case .integer(let grouped) = runRows[0][1], case .integer(let plain) = plainRows[0][0]
        else { Issue.record("no group rows: \(runRows) \(plainRows)"); return }
        #expect(Int(grouped + plain) >= steps + 1 && runs + plain < grouped / 2, "\(runs) runs of \(grouped) groups, \(plain) rows")
        let verification = try DocumentVerifier.verify(url)
        #expect(verification.isValid, "\(verification.problems)")
        try Self.checkReopened(url, text: text, steps: steps)

        // Compacted keeping all history: the state is packed and its characters are the column's.
        do {
            let store = try DocumentStore(openingAt: url, model: textNoteModel, configuration: Self.configuration())
            #expect(try store.groupRecords().count >= steps + 1)
            _ = try store.compact()
            try store.close()
        }
        let states = try sqlRows(url, "SELECT state FROM strata_text")
        guard case .blob(let state)? = states.first?.first else { Issue.record("no text state"); return }
        #expect(Array(state.prefix(2)) == TextStatePacking.marker)
        #expect(state.count < text.utf8.count, "a state of \(state.count) bytes for \(text.utf8.count) of text")
        try Self.checkReopened(url, text: text, steps: steps)
        // Typing on after the compaction reads the packed state with the column's characters.
        do {
            let stack = try DocumentStack.open(url, model: textNoteModel, configuration: Self.configuration())
            let note = try #require(try stack.context.fetch(FetchRequest(entityName: "Note")).first)
            try note.replaceCharacters(in: 0..<0, with: "¡", forKey: "body")
            try stack.context.save()
            try stack.store.close()
        }
        let again = try DocumentStack.open(url, model: textNoteModel, configuration: Self.configuration())
        #expect(try again.context.fetch(FetchRequest(entityName: "Note")).first?.text("body") == "¡" + text)
        try again.store.close()
        #expect(try DocumentVerifier.verify(url).isValid)
    }

    @Test func packedStatesRoundTripWithTheirCharactersOrTheColumnsAndDamageIsNamed() throws {
        var rng = SeededGenerator(seed: 11)
        let (edits, base) = SegmentV5Tests.typing(1_500, peers: [3, 0xABCD_EF01_2345], using: &rng)
        var text = TextSequence(base: base)
        for edit in edits { _ = try text.apply(edit, peer: 3, resolvingRestores: false) }
        let string = text.string
        for inColumn in [false, true] {
            let state = try #require(TextStatePacking.encode(text, charactersInColumn: inColumn))
            #expect(Array(state.prefix(2)) == TextStatePacking.marker && TextStatePacking.isPacked(state))
            let decoded = try TextCoding.decodeSequence(state) { inColumn ? string : nil }
            #expect(decoded.string == string && decoded.shownIdentities() == text.shownIdentities())
            // Runs that continue one another are joined as they are read: never more runs.
            #expect(decoded.runCount <= text.runCount)
            #expect(state.count * 2 < TextCoding.encode(text).count, "packed \(state.count) B, §18 \(TextCoding.encode(text).count) B")
        }
        // A column that is missing or does not hold the shown characters.
        let state = try #require(TextStatePacking.encode(text, charactersInColumn: true))
        let missing = try #require(throws: StrataError.self) { try TextCoding.decodeSequence(state) { nil } }
        #expect(missing.code == .corruptSegment && missing.message.contains("column"))
        let short = try #require(throws: StrataError.self) { try TextCoding.decodeSequence(state) { String(string.dropLast()) } }
        #expect(short.message.contains("are stored"))
        // Damaged packed bodies are refused, never a crash (the frame's checksum catches most;
        // a body packed again without it reaches the run reader).
        var refused = 0
        for iteration in 0..<2_000 {
            var body = try LZ4Frame.decompress(Array(state.dropFirst(2)), maxContentSize: 1 << 24)
            body = SegmentFuzzing.mutate(body, using: &rng)
            let mutant = iteration % 2 == 0 ? TextStatePacking.marker + LZ4Frame.compress(body) : SegmentFuzzing.mutate(state, using: &rng)
            do {
                _ = try TextCoding.decodeSequence(mutant) { string }
            } catch let error as StrataError {
                #expect(error.code == .corruptSegment, "\(error)")
                refused += 1
            }
        }
        #expect(refused > 1_000)
    }

    @Test func theDocumentInTheFormsBeforeStillReads() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let (text, steps) = try Self.makeDocument(url)
        do {
            let store = try DocumentStore(openingAt: url, model: textNoteModel, configuration: Self.configuration())
            _ = try store.compact()
            try store.close()
        }
        try Self.rewriteInFormat2(url)
        #expect(try Self.segmentVersions(url).dropFirst().allSatisfy { $0 == 4 })
        try Self.checkReopened(url, text: text, steps: steps)
        #expect(try DocumentVerifier.verify(url).isValid)
    }

    /// Rewrites a packed document as the Strata before format 3 wrote it: version 4
    /// segments, a row per group, §18's text states, format 2.
    static func rewriteInFormat2(_ url: URL) throws {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        try connection.transaction(.exclusive) {
            for row in try connection.prepare("SELECT seq, body FROM strata_segment").rows() {
                guard case .integer(let sequence) = row[0], case .blob(let frame) = row[1] else { continue }
                let segment = try SegmentCodec.decodeCompressed(frame, model: textNoteModel, storeTag: 1, sequenceHint: UInt64(sequence))
                guard segment.hasTextEdits else { continue }
                let body = try SegmentEncoder.encode(segment, model: textNoteModel, version: 4)
                try connection.prepare("UPDATE strata_segment SET body = ?, raw_size = ? WHERE seq = ?")
                    .run([.blob(LZ4Frame.compress(body)), .integer(Int64(body.count)), .integer(sequence)])
                for group in segment.groups {
                    try connection.prepare("INSERT OR REPLACE INTO strata_group (seq, id, kind, reverts, action) VALUES (?, ?, ?, ?, ?)")
                        .run([.integer(sequence), .integer(Int64(group.id)), .integer(Int64(group.kind.rawValue)),
                              group.revertsGroup.map { .integer(Int64($0)) } ?? .null, .text(group.actionName)])
                }
            }
            try connection.execute("DROP TABLE strata_group_run")
            for row in try connection.prepare("SELECT entity, pk, attribute, state FROM strata_text").rows() {
                guard case .blob(let state) = row[3], case .integer(let key) = row[1] else { continue }
                let column = try connection.prepare("SELECT body FROM Note WHERE _pk = ?").rows([.integer(key)])
                guard case .text(let body)? = column.first?.first else { continue }
                let text = try TextCoding.decodeSequence(state) { body }
                try connection.prepare("UPDATE strata_text SET state = ? WHERE entity = ? AND pk = ? AND attribute = ?")
                    .run([.blob(TextCoding.encode(text)), row[0], row[1], row[2]])
            }
            try DocumentFile.writeMeta(connection, key: "formatVersion", .integer(2))
            try DocumentFile.writeIdentityChecksum(connection)
        }
    }
}
