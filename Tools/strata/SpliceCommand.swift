import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata splice DOC URI KEY (--at N | --end) [--delete M] [--insert TEXT]`.
struct SpliceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splice",
        abstract: "Replace characters of a text attribute, as typing does.",
        discussion: """
            Deletes --delete characters at --at (or appends, with --end) and inserts \
            --insert there, in one text \
            attribute of one object (a string attribute the model marks as a text). \
            Positions count Unicode scalars from 0. The splice merges with what other \
            processes and replicas typed into the same text meanwhile, character by \
            character, and is saved as one undo group named "Typing" that `strata undo` \
            reverts without touching anyone else's characters. Prints the text after it.

            Examples:
              strata splice notes.strata Note/p1 body --at 0 --insert "Dear Ada, "
              strata splice notes.strata Note/p1 title --at 4 --delete 3
              strata splice notes.strata Note/p1 body --at 12 --delete 5 --insert "world"
              strata splice notes.strata Note/p1 body --end --insert " Yours, Charles"
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The object's URI (or Entity/pKEY).")
    var uri: String
    @Argument(help: "The text attribute.")
    var key: String
    @Option(help: ArgumentHelp("Where the splice starts, in Unicode scalars from 0.", valueName: "position"))
    var at: Int?
    @Flag(help: "Insert at the end of the text, wherever it is when the splice is made.")
    var end = false
    @Option(help: ArgumentHelp("How many characters to delete there.", valueName: "count"))
    var delete: Int = 0
    @Option(help: ArgumentHelp("The text to insert there.", valueName: "text"))
    var insert: String = ""

    func validate() throws {
        guard (at != nil) != end else { throw ValidationError("Give one of --at POSITION and --end.") }
        if let at, at < 0 { throw ValidationError("--at must be 0 or more (got \(at)).") }
        if end, delete > 0 { throw ValidationError("--end inserts after the last character; there is nothing to delete there.") }
        guard delete >= 0 else { throw ValidationError("--delete must be 0 or more (got \(delete)).") }
        guard delete > 0 || !insert.isEmpty else { throw ValidationError("Nothing to do: give --delete, --insert or both.") }
    }

    func run() throws {
        let text = try DocumentSession.with(document, writes: true) { session in
            let object = try session.object(uri)
            let start: Int
            if let at {
                start = at
            } else if case .string(let text) = try object.value(forKey: key) {
                start = text.unicodeScalars.count
            } else {
                start = 0
            }
            try object.replaceCharacters(in: start..<(start + delete), with: insert, forKey: key)
            try session.save(action: "Typing")
            return try object.value(forKey: key)
        }
        if case .string(let value) = text { print(value) } else { print("") }
    }
}
