import Foundation
import Strata
import Testing

/// What the text property tests that run the `strata` tool share (docs/TEXT.md; the
/// properties are ``TextConvergenceHistory``'s): an edit as a command, and the text a
/// replay of a document's log gives.
enum TextPropertyCommands {
    /// The `strata` arguments that make `edit` on `note`'s title in `document`.
    static func arguments(_ edit: RandomTextEdit, _ document: String, _ note: String) -> [String] {
        switch edit {
        case .insert(let at, let run): return ["splice", document, note, "title", "--at", "\(at)", "--insert", run]
        case .delete(let at, let count): return ["splice", document, note, "title", "--at", "\(at)", "--delete", "\(count)"]
        case .replace(let at, let count, let run):
            return ["splice", document, note, "title", "--at", "\(at)", "--delete", "\(count)", "--insert", run]
        case .undo: return ["undo", document]
        case .redo: return ["redo", document]
        }
    }

    /// Whether a failed undo or redo only found nothing to undo or redo (a group that a
    /// racing process's change cleared); any other failure is a failure.
    static func foundNothing(_ result: CommandResult) -> Bool {
        result.status != 0 && result.stderr.contains("Nothing to")
    }

    /// `Note/pN` for a note's URI: how another document with the same keys (a replay)
    /// names it.
    static func key(_ note: String) -> String {
        note.split(separator: "/").suffix(2).joined(separator: "/")
    }

    /// The title of `note` in a new document that `strata-log replay` wrote from every
    /// segment of `document`'s log (property 5), after `strata-log verify` passed on it.
    static func replayedTitle(_ document: String, _ note: String, in sandbox: TemporaryDirectory) throws -> String {
        let verify = try CLI.strataLog("verify", document)
        #expect(verify.status == 0, "\(document): \(verify.stdout)\(verify.stderr)")
        let info = try CLI.strata("info", document, "--json")
        let json = try #require(try info.json() as? [String: Any], "\(info.stdout)\(info.stderr)")
        let last = try #require((json["segments"] as? [String: Any])?["last"] as? Int, "\(json)")
        let replayed = sandbox.path("replayed-\(UUID().uuidString.prefix(8)).strata")
        let replay = try CLI.strataLog("replay", document, "--to", "\(last)", "--out", replayed)
        try #require(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        return try TextSpliceCommands.title(replayed, key(note))
    }
}
