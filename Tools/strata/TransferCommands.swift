import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata export DOC [--format json] [--output FILE]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every object as JSON, ready for `strata import`.",
        discussion: """
            Writes one JSON array holding every object of every concrete entity (model order, \
            then key order), each shaped as `fetch --format json` prints it: "_uri" (the \
            object's URI in this document), "_entity", then each stored property; \
            relationships hold the URIs of their destinations; a composite attribute is a \
            nested object of its elements ("address": {"city": …}).

            `strata import` into a new document of the same model reproduces the objects and \
            their relationships: it creates every object first, remembering which new object \
            each old "_uri" became, and then links relationships in a second pass through that \
            map.

            The objects are written as they are read, a batch of bytes at a time, so memory \
            stays the same whatever their number. With --output, the JSON is written to a \
            hidden temporary file beside FILE (.FILE.writing-…) and renamed to FILE only when \
            complete: an export that fails or is interrupted (SIGINT, SIGTERM, SIGHUP, a full \
            disk) leaves no file at FILE, or the old FILE unchanged, and removes the temporary \
            file (SIGKILL cannot be caught: it leaves the hidden file, never a partial FILE). \
            On standard output an interrupted export stops mid-array: the text is not valid \
            JSON (no closing bracket), so `strata import` and JSON parsers refuse it rather \
            than read part of the objects as all of them; use --output for a file that is \
            either complete or absent.

            Examples:
              strata export staff.strata > staff.json
              strata export staff.strata --output staff.json
              strata new copy.strata --example employees && strata import copy.strata staff.json
            """)

    enum Format: String, ExpressibleByArgument { case json }

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "json (the only format).")
    var format: Format = .json
    @Option(name: [.short, .long], help: "Write to this file instead of standard output (- is standard output); it appears only when complete.",
            completion: .file(extensions: ["json"]))
    var output: String?

    func run() throws {
        try DocumentSession.with(document, pageCacheSize: DocumentSession.onePassPageCacheSize) { session in
            // Opened after the document, so a document that cannot be opened leaves no
            // temporary file behind and the target as it was.
            let output = try StreamedOutput(path: output)
            // As `JSONValue.array(records).rendered(pretty: true)`, record by record,
            // written from the values into the output's bytes (``ToolRecordWriter``).
            var first = true
            var writer = ToolRecordWriter(indent: 1)
            try output.write("[")
            for entity in session.model.entities where !entity.isAbstract {
                let request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                try session.context.forEachStoredRow(matching: request) { row in
                    try output.append { bytes in
                        bytes.append(contentsOf: (first ? "\n  " : ",\n  ").utf8)
                        try writer.append(row, to: &bytes)
                    }
                    first = false
                }
            }
            try output.write(first ? "]\n" : "\n]\n")
            try output.finish()
        }
    }
}

/// `strata import DOC FILE [--entity ENTITY] [--format json|csv]`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import objects from a JSON array or a CSV file, as one undo group.",
        discussion: """
            JSON: an array of objects whose keys are property names; "_entity" picks the \
            entity of an object (else --entity), "_uri" names it so that relationships in the \
            same file can refer to it. Values are JSON values of the attribute's type (strings \
            are parsed like command-line values); a to-one is a URI string or null, a to-many \
            an array of URIs, a composite attribute a nested object of its elements. CSV: a \
            header row of property names (and optionally _uri, _entity; a composite's elements \
            as address.city); an empty cell is null; a to-many cell lists URIs separated by spaces.

            The file must be a regular file (the import reads it more than once); - reads \
            standard input, copied to a temporary file first. Every row \
            is held to the import limits (STRATA_LIMITS: maxImportFieldBytes, \
            maxImportRecordBytes, maxImportRecordValues; docs/LIMITS.md); CSV text must be \
            UTF-8 (--replace-invalid-utf8 stores U+FFFD instead) and its header must name each \
            column once.

            References name objects of the file (by their "_uri") or objects already in the \
            document (a URI or Entity/pKEY). Objects are created first, relationships linked in \
            a second pass. The import is saved as one undo group ("Import ENTITY"), so one \
            `strata undo` removes it. The file is read as it is imported (memory does not grow \
            with its size), a progress bar shows each phase on a terminal (reading, writing, \
            folding; in rows, with the rate and the time left), and the document is compacted \
            afterwards so that the next command reads indexed tables.

            Uniqueness constraints hold as they do for `strata insert`: with --merge-policy \
            error (the default) an object whose key a record or an earlier object of the file \
            holds stops the import, which names the rows and the constraint and writes \
            nothing. objectTrump and overwrite update the record holding the key with the \
            object's values instead (an upsert; of two objects of the file with one key the \
            later wins; objectTrump takes the values that differ from the model's defaults, \
            overwrite every attribute); storeTrump only fills the record's empty attributes; \
            rollback keeps the record as it is. Such an object must not set relationships.

            Examples:
              strata import staff.strata people.csv --entity Employee
              strata import shop.strata items.csv --entity Item --merge-policy objectTrump
              strata import staff.strata departments.json --entity Department
              strata export old.strata > all.json && strata import new.strata all.json
              strata export old.strata | strata import new.strata -
            """)

    enum Format: String, ExpressibleByArgument { case json, csv }

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The JSON or CSV file; - reads standard input.", completion: ToolCompletion.importFile)
    var file: String
    @Option(help: "The entity of objects that do not name one with _entity.")
    var entity: String?
    @Option(help: "json or csv (default: from the file's extension, else its first character).")
    var format: Format?
    @Option(name: .customLong("merge-policy"),
            help: "What an object whose uniqueness key is taken does: error (stop, write nothing; the default), objectTrump or overwrite (update the record holding the key), storeTrump (fill its empty attributes) or rollback (keep it as it is).")
    var mergePolicy = "error"
    @Flag(name: .customLong("replace-invalid-utf8"),
          help: "CSV: store U+FFFD for bytes that are not UTF-8 (default: such a field is an error naming its row and column).")
    var replacesInvalidUTF8 = false

    func run() throws {
        // `-`: standard input, copied to a temporary file first (an import reads its file
        // more than once).
        let spooled = file == ToolStandardStreams.dash ? try ToolStandardStreams.spoolStandardInput() : nil
        let path = spooled?.path ?? file
        let summary = try withExtendedLifetime(spooled) { try importFile(at: path) }
        print(summary)
    }

    private func importFile(at path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        let chosen = try format ?? Self.format(of: url)
        let policy = try MergePolicyOption.policy(named: mergePolicy)
        return try DocumentSession.with(document, writes: true, pageCacheSize: Self.pageCacheSize) { session in
            // Both paths take it: the batch insert and, for a file of several entities, the save.
            session.context.mergePolicy = policy
            // One line per phase: Reading, Writing (or Validating and writing), Folding.
            let bar = ToolProgressBar()
            do {
                return try importRows(path, format: chosen, into: session, bar: bar)
            } catch {
                bar.discard()
                throw error
            }
        }
    }

    private func importRows(_ path: String, format chosen: Format, into session: DocumentSession, bar: ToolProgressBar) throws -> String {
        // The batch path first: rows stream into one undoable batch insert (a file whose
        // rows name each other is read twice, to reserve their IDs first). A file of
        // several entities is read again and goes through the context in two passes.
        var source = try ImportByteSource(path: path)
        let batched = try ImportBatch.insert(
            open: {
                source = try ImportByteSource(path: path)
                return ImportRowReader(source, csv: chosen == .csv, replacesInvalidUTF8: replacesInvalidUTF8)
            },
            defaultEntity: entity, into: session,
            progress: { phase, rows in
                if bar.phase != phase {
                    // Writing gives way to Reading when the rows turn out to name each other:
                    // that attempt wrote nothing, so its line goes.
                    if bar.phase == .writing { bar.discard() }
                    bar.begin(phase)
                }
                bar.update(rows: rows, fraction: source.totalBytes > 0 ? Double(source.bytesConsumed) / Double(source.totalBytes) : nil)
            })
        let count: Int, action: String
        var merged = 0
        if let batched {
            (count, merged, action) = batched
            if bar.phase != .writing { bar.begin(.writing) }
            bar.finish(rows: count + merged)
        } else {
            bar.discard()
            let again = try ImportByteSource(path: path)
            var reader = ImportRowReader(again, csv: chosen == .csv, replacesInvalidUTF8: replacesInvalidUTF8)
            (count, action) = try ImportRows.insert(
                next: { try reader.next() }, progress: { (again.bytesConsumed, again.totalBytes) },
                defaultEntity: entity, into: session)
            bar.begin(.validatingAndWriting)
            bar.update(rows: count, fraction: nil)
            try session.save(action: action)
            bar.finish(rows: count)
        }
        // Fold the import into the snapshot tables now (the log keeps the segment for
        // undo): the next command reads indexed tables, not the whole segment decoded.
        // The import is saved: a failed compaction (a full disk) leaves it unfolded but
        // whole, and is a warning, so that a script does not import it twice.
        bar.begin(.folding)
        do {
            try session.store.compact { done, total in bar.update(done, of: total) }
            bar.finish()
        } catch {
            bar.discard()
            CommandOutput.note("strata: warning: imported, but not compacted (\(error)); `strata-log compact` folds it later.")
        }
        let merges = merged == 0 ? "" : "; \(merged) row\(merged == 1 ? "" : "s") merged into records holding \(merged == 1 ? "its key" : "their keys")"
        return "Imported \(count) object\(count == 1 ? "" : "s") (\(action))\(merges)."
    }

    /// SQLite's page cache while importing (the store's default is 64 MiB). An import
    /// writes new pages and reads few back: a small cache costs little time and keeps the
    /// process's peak near the size of a chunk. SQLite's own default, 2 MiB, took W8's peak
    /// from 58 to 46 MiB (against 8 MiB) and was no slower (docs/ARCHITECTURE.md, "Batch
    /// requests and merges").
    static let pageCacheSize = 2 << 20

    /// The format from the file's extension, else its first character ("[": JSON).
    private static func format(of url: URL) throws -> Format {
        switch url.pathExtension.lowercased() {
        case "csv": return .csv
        case "json": return .json
        default:
            let source = try ImportByteSource(path: url.path)
            while let byte = try source.next() {
                if !" \n\r\t".utf8.contains(byte) { return byte == UInt8(ascii: "[") ? .json : .csv }
            }
            return .csv
        }
    }
}
