import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata-log dump DOC [--from SEQ] [--to SEQ] [--json]`.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print segments, their undo groups and operations.",
        discussion: """
            For each segment: its sequence, time, sizes and whether it is compacted; for each \
            group: id, kind (user, undo, redo, ...), the group it reverts and its action name; \
            for each operation: insert/update/delete/relate with entity and key names, old and \
            new values, and objects (Entity/pKEY in text, full URIs in JSON). Reads the file \
            directly, so it works on a document whose log is damaged (a damaged segment is \
            reported in place).

            Examples:
              strata-log dump staff.strata
              strata-log dump staff.strata --from 10 --to 12
              strata-log dump staff.strata --json | jq '.[].groups[].action'
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "The first segment to show.")
    var from: UInt64 = 0
    @Option(help: "The last segment to show.")
    var to: UInt64 = UInt64(Int64.max)
    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }

    func validate() throws {
        guard from <= to else { throw ValidationError("--from must not be after --to.") }
    }

    func run() throws {
        let log = try DocumentLogFile(URL(fileURLWithPath: document), settings: ToolSettings.configuration(writes: false))
        let records = try log.segmentRecords(in: from...to)
        if json {
            LogSession.printJSON(.array(records.map { record in
                do {
                    return ToolLogText.json(try log.decode(record), record: record)
                } catch {
                    return .fields(["sequence": .int(record.sequence), "error": .string("\(error)")])
                }
            }))
            return
        }
        if records.isEmpty { print("No segments in that range.") }
        for record in records {
            let state = record.isCompacted ? "compacted" : "not compacted"
            print("segment \(record.sequence)  \(ToolValueText.timestamp(record.timestamp))  \(record.groupCount) group\(record.groupCount == 1 ? "" : "s"), \(record.operationCount) operation\(record.operationCount == 1 ? "" : "s"), \(record.rawSize) B raw → \(record.body.count) B  (\(state))")
            do {
                let segment = try log.decode(record)
                for group in segment.groups {
                    let reverts = group.revertsGroup.map { " (reverts \($0))" } ?? ""
                    print("  group \(group.id)  \(ToolLogText.kindName(group.kind))\(reverts)  \"\(group.actionName)\"")
                    for operation in group.operations { print("    " + ToolLogText.line(operation)) }
                }
            } catch let error as StrataError {
                print("  DAMAGED: \(error.message)")
            }
        }
    }
}

/// `strata-log verify DOC`.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every segment and the document's consistency.",
        discussion: """
            Checks each segment's LZ4 checksum and decoding and that it agrees with its log \
            row; that the current state (snapshot plus uncompacted segments) is consistent: \
            unique keys within the key counters, per-entity counts, relationship destinations \
            that exist, inverses that point back; and, when the full history is retained \
            (the first segment is 1), that replaying the whole log from empty gives exactly \
            the current records. Exits 0 only when everything holds; otherwise prints each \
            problem and exits 65 (damaged data). Changes nothing.

            Examples:
              strata-log verify staff.strata
              strata-log verify staff.strata || strata-log recover staff.strata
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }

    func run() throws {
        let report = try DocumentVerifier.verify(URL(fileURLWithPath: document), settings: ToolSettings.configuration(writes: false))
        for line in report.passed { print("ok  \(line)") }
        for line in report.notes { print("note  \(line)") }
        if report.isValid {
            print("\(document): verified")
            return
        }
        for problem in report.problems { print("FAIL  \(problem)") }
        // Damaged data: EX_DATAERR, as for any command that meets the damage.
        ToolRunner.fail(tool: "strata-log", "\(document) failed verification: \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") (listed above).",
                        status: ToolExitStatus.dataError)
    }
}

/// `strata-log compact DOC [--retain all|none|N]`.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Fold the log into the snapshot tables.",
        discussion: """
            Writes the net effect of the uncompacted segments into the snapshot tables in one \
            transaction. --retain says which segments stay afterwards as history (undo across \
            sessions, replay, audit): all (the default), none, or the last N. A progress bar \
            shows on a terminal ("Folding", in rows).

            Examples:
              strata-log compact staff.strata
              strata-log compact staff.strata --retain 50
              strata-log compact staff.strata --retain none
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "Segments kept afterwards: all, none or a number.")
    var retain = "all"

    func run() throws {
        guard let retention = DocumentStore.HistoryRetention(retain) else {
            throw StrataError(.invalidArgument, "--retain takes all, none or a number; got \(input: retain).")
        }
        let bar = ToolProgressBar()
        let report: CompactionReport
        do {
            report = try LogSession.withStore(document, writes: true) { store in
                bar.begin(.folding)
                return try store.compact(retention: retention) { done, total in bar.update(done, of: total) }
            }
        } catch {
            bar.discard()
            throw error
        }
        bar.finish()
        print("Compacted \(report.segments) segment\(report.segments == 1 ? "" : "s") through segment \(report.compactedThrough): \(report.rowsWritten) rows written, \(report.rowsDeleted) deleted; \(report.segmentsDropped) segment\(report.segmentsDropped == 1 ? "" : "s") dropped (retain \(retention)).")
    }
}

/// `strata-log replay DOC (--to SEQ | --at DATE) --out NEW`.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Write a new document as the document was after a segment (time travel).",
        discussion: """
            Re-appends segments 1 through SEQ (or the last one saved at or before an ISO-8601 \
            date) to a new document with the same model: the objects as they were then, with \
            their keys, and the undo history up to that point. Needs the full history (the \
            first retained segment must be 1).

            Examples:
              strata-log replay staff.strata --to 5 --out staff-at-5.strata
              strata-log replay staff.strata --at 2024-03-01T12:00:00Z --out noon.strata
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "The last segment to replay.")
    var to: UInt64?
    @Option(help: "Replay up to the last segment saved at or before this ISO-8601 date.")
    var at: String?
    @Option(help: "The new document.", completion: ToolCompletion.document)
    var out: String
    @Flag(help: "Replace an existing output file.")
    var force = false

    func validate() throws {
        guard (to == nil) != (at == nil) else { throw ValidationError("Give either --to SEQ or --at DATE.") }
        guard out != ToolStandardStreams.dash else { throw ValidationError(ToolStandardStreams.message(role: "--out")) }
    }

    func run() throws {
        let source = URL(fileURLWithPath: document)
        let destination = URL(fileURLWithPath: out)
        if FileManager.default.fileExists(atPath: destination.path), !force {
            throw StrataError(.io, "\(destination.path) already exists; pass --force to replace it.", context: .init { $0.path = destination.path; $0.kind = .exists })
        }
        let sequence: UInt64
        if let to {
            sequence = to
        } else {
            guard let text = at, let date = ToolValueText.date(from: text) else {
                throw StrataError(.invalidArgument, "--at '\(at ?? "")' is not an ISO-8601 date (2024-03-01T12:00:00Z).")
            }
            guard let found = try DocumentReplay.lastSegment(of: source, atOrBefore: date, settings: ToolSettings.configuration(writes: false)) else {
                throw StrataError(.invalidArgument, "No retained segment was saved at or before \(text).")
            }
            sequence = found
        }
        let count = try DocumentReplay.replay(source, through: sequence, to: destination, overwrite: force, settings: ToolSettings.configuration(writes: false))
        print("Wrote \(destination.path): the document after segment \(sequence) (\(count) segment\(count == 1 ? "" : "s") replayed).")
    }
}

/// `strata-log export DOC --out DIR`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write each segment's body (SEQ.lz4) and its decoded JSON (SEQ.json).",
        discussion: """
            SEQ.lz4 is the stored LZ4 frame, readable with `lz4 -d SEQ.lz4 SEQ.bin` (the raw \
            body, docs/FORMAT.md); SEQ.json is the segment as `dump --json` prints it. A damaged \
            segment's frame is still written, its JSON holds the error.

            Examples:
              strata-log export staff.strata --out segments/
              lz4 -d segments/1.lz4 segments/1.bin
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "The directory to write into (created if needed).", completion: .directory)
    var out: String

    func validate() throws {
        guard out != ToolStandardStreams.dash else {
            throw ValidationError("--out names a directory for two files per segment; '-' (standard output) cannot hold them. Use `strata-log dump --json` for one stream.")
        }
    }

    func run() throws {
        let log = try DocumentLogFile(URL(fileURLWithPath: document), settings: ToolSettings.configuration(writes: false))
        let folder = URL(fileURLWithPath: out)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var count = 0
            for record in try log.segmentRecords() {
                try AtomicFileWriter.write(Data(record.body), to: folder.appendingPathComponent("\(record.sequence).lz4"))
                let json: JSONValue
                do {
                    json = ToolLogText.json(try log.decode(record), record: record)
                } catch {
                    json = .fields(["sequence": .int(record.sequence), "error": .string("\(error)")])
                }
                try AtomicFileWriter.write(Data((json.rendered(pretty: true) + "\n").utf8), to: folder.appendingPathComponent("\(record.sequence).json"))
                count += 1
            }
            print("Wrote \(count) segment\(count == 1 ? "" : "s") to \(folder.path) (SEQ.lz4 and SEQ.json).")
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.io, "Cannot write into \(folder.path): \(error.localizedDescription)", context: .init { $0.path = folder.path })
        }
    }
}

/// `strata-log recover DOC`.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Repair a damaged document: rebuild it from its log, or salvage what can be read.",
        discussion: """
            Runs the checks of `verify` first and changes nothing when they hold. Otherwise it \
            copies the file to DOC.bak-<timestamp> and writes the repaired document beside it, \
            renamed into place when complete:

            - a damaged identity (store identifier, model, format, creation date) is restored \
              from a backup beside the document with an intact identity, or by the one \
              single-byte repair its identity checksum confirms; if neither exists, recover \
              says so and changes nothing;
            - when the log is complete (history from segment 1, every segment intact) the \
              snapshot tables are rebuilt from it;
            - otherwise a damaged segment that is not compacted yet is dropped with every \
              segment saved after it (the document as it was before the damage), a damaged \
              compacted segment with the history before it, and every snapshot row SQLite \
              can still read is kept. What was lost is listed.

            Examples:
              strata-log recover staff.strata
              strata-log verify staff.strata || strata-log recover staff.strata
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }

    func run() throws {
        let report = try DocumentRecovery.recover(URL(fileURLWithPath: document), settings: ToolSettings.configuration(writes: false))
        guard let backup = report.backup else {
            print("Nothing to recover: \(document) verifies (every segment, the snapshot and the identity are intact).")
            return
        }
        for problem in report.damage { print("damage: \(problem)") }
        print("Backup: \(backup.path)")
        for repair in report.repairs { print("repaired: \(repair)") }
        for (sequence, reason) in report.dropped { print("dropped segment \(sequence): \(reason)") }
        for loss in report.losses { print("lost: \(loss)") }
        print("Dropped \(report.dropped.count) segment\(report.dropped.count == 1 ? "" : "s"). Run `strata-log verify \(document)` to check the result.")
    }
}
