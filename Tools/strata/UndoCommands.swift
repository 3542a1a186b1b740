import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata undo DOC [--steps N]`.
struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Undo the last saved change groups, across invocations.",
        discussion: """
            Rebuilds the undo stack from the document's history, undoes N groups and saves \
            the result (recorded as undo groups, so `strata redo` can re-apply them later). \
            Fails, changing nothing, when fewer than N groups can be undone.

            Examples:
              strata undo staff.strata
              strata undo staff.strata --steps 3
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "How many groups to undo.")
    var steps = 1

    func validate() throws {
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1.") }
    }

    func run() throws {
        try UndoRedo.run(document, steps: steps, redo: false)
    }
}

/// `strata redo DOC [--steps N]`.
struct RedoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo",
        abstract: "Redo undone change groups, across invocations.",
        discussion: """
            Re-applies the last N undone groups and saves. A new change after an undo clears \
            what can be redone, as in any editor.

            Examples:
              strata redo staff.strata
              strata redo staff.strata --steps 2
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Option(help: "How many groups to redo.")
    var steps = 1

    func validate() throws {
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1.") }
    }

    func run() throws {
        try UndoRedo.run(document, steps: steps, redo: true)
    }
}

enum UndoRedo {
    static func run(_ document: String, steps: Int, redo: Bool) throws {
        let verb = redo ? "redo" : "undo"
        let names = try DocumentSession.with(document, writes: true) { session -> [String] in
            // The group is chosen inside the document's write transaction, after taking in
            // every other writer's saves, as keys are: two `strata undo` at once run as one
            // after the other (docs/SEMANTICS.md, "Undo and redo across contexts and processes").
            try session.store.performWrite { try undoOrRedo(session, steps: steps, redo: redo, verb: verb) }
        }
        for name in names { print("\(redo ? "Redid" : "Undid") \(name.isEmpty ? "unnamed change" : name)") }
    }

    /// Rebuilds the stacks from the history as it is now, reverts `steps` groups and saves.
    private static func undoOrRedo(_ session: DocumentSession, steps: Int, redo: Bool, verb: String) throws -> [String] {
        // Only the groups reverted are decoded (an undo of an import in a long history
        // decodes the import): nothing changes the log inside the write this holds.
        try session.context.restoreUndoHistoryReadingOperationsWhenReverted()
        guard let undoManager = session.context.undoManager else { return [] }
        let available = redo ? undoManager.redoCount : undoManager.undoCount
        guard available >= steps else {
            var message = available == 0 ? "Nothing to \(verb) in \(session.url.path)."
                : "Only \(available) group\(available == 1 ? "" : "s") can be \(redo ? "redone" : "undone"); asked for \(steps)."
            if let boundary = try session.store.undoBoundary {
                message += " The document was migrated to its current model at segment \(boundary); an \(verb) cannot cross a migration."
            }
            throw StrataError(.undo, message)
        }
        var names: [String] = []
        // One group of inserts or deletes (an import) is reverted and saved in the store, at
        // the import's pace (docs/ARCHITECTURE.md, "Undo"). Only as the only step: a later
        // step of the same write would read the records as they were before it.
        if steps == 1 {
            let name = redo ? undoManager.redoActionName : undoManager.undoActionName
            if try undoManager.undoSavingInStore(redo: redo) { return [name] }
        }
        for _ in 0..<steps {
            names.append(redo ? undoManager.redoActionName : undoManager.undoActionName)
            if redo { try undoManager.redo() } else { try undoManager.undo() }
        }
        try session.save(action: "")
        return names
    }
}

/// `strata history DOC [--since TOKEN] [--author NAME] [--json]`.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the document's undo groups.",
        discussion: """
            One line per recorded group, oldest first: its id, the segment that holds it, \
            when it was saved, its kind (user, undo, redo, ...), its action name, the group \
            it reverts, and whether its effect is currently undone (derived from the revert \
            chains: a group is undone when the last group that reverts it is in effect).

            --since TOKEN lists only the groups saved after that history token (the \
            `token` field of --json: a segment sequence); --author NAME only the groups \
            saved by contexts whose transactionAuthor is NAME (strata commands record \
            $STRATA_AUTHOR). --json adds each group's token, author and context name.

            Examples:
              strata history staff.strata
              strata history staff.strata --json | jq '.[] | select(.undone)'
              STRATA_AUTHOR=ada strata update staff.strata Employee/1 salary=200
              strata history staff.strata --since 12 --author ada
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }
    @Option(help: "Only groups saved after this history token (the token field of --json).")
    var since: String?
    @Option(help: "Only groups saved by this author (a context's transactionAuthor; $STRATA_AUTHOR for strata commands).")
    var author: String?

    func validate() throws {
        if let since, PersistentHistoryToken(since) == nil {
            throw ValidationError("--since takes a history token, a segment number such as 12 (the token field of --json); got \(input: since).")
        }
    }

    func run() throws {
        try DocumentSession.with(document) { session in
            let all = try session.store.groupRecords()
            // Undone-ness follows revert chains through every group, also those filtered out.
            let undone = Self.undoneGroups(all.map(\.info))
            let request = PersistentHistoryRequest(after: since.flatMap(PersistentHistoryToken.init),
                                                   authors: author.map { [$0] })
            let transactions = Dictionary(try session.store.history(request).map { ($0.token.sequence, $0) },
                                          uniquingKeysWith: { first, _ in first })
            let records = all.filter { transactions[$0.sequence] != nil }
            if json {
                CommandOutput.printJSON(.array(records.map { record in
                    .fields([
                        "id": .int(record.info.id),
                        "segment": .int(record.sequence),
                        "time": .string(ToolValueText.timestamp(record.timestamp)),
                        "kind": .string(Self.kindName(record.info.kind)),
                        "action": .string(record.info.actionName),
                        "reverts": record.info.revertsGroup.map { .int($0) } ?? .null,
                        "undone": .bool(undone.contains(record.info.id)),
                        "token": .string(String(record.sequence)),
                        "author": transactions[record.sequence]?.author.map { .string($0) } ?? .null,
                        "context": transactions[record.sequence]?.contextName.map { .string($0) } ?? .null,
                    ])
                }))
                return
            }
            guard !records.isEmpty else {
                print(all.isEmpty ? "No history: nothing has been saved yet." : "No groups match --since/--author.")
                return
            }
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            let rows = records.map { record -> [String] in
                [String(record.info.id), String(record.sequence), formatter.string(from: record.timestamp),
                 Self.kindName(record.info.kind), record.info.actionName,
                 record.info.revertsGroup.map { "reverts \($0)" } ?? "", undone.contains(record.info.id) ? "undone" : ""]
            }
            print(CommandOutput.table(["group", "segment", "time", "kind", "action", "reverts", "state"], rows, rightAligned: [0, 1]))
        }
    }

    /// The groups whose effect is undone (``ToolUndoState/undoneGroups(_:)``).
    static func undoneGroups(_ groups: [ChangeGroupInfo]) -> Set<UInt64> { ToolUndoState.undoneGroups(groups) }

    static func kindName(_ kind: ChangeGroupKind) -> String { ToolLogText.kindName(kind) }
}
