import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata`: create, inspect and edit Strata documents from a shell.
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Create, inspect and edit Strata documents.",
        discussion: """
            A Strata document is one SQLite file holding a model, an append-only log of \
            LZ4-compressed segments (one per save) and snapshot tables. Every mutating command \
            is one save and one undo group, so `strata undo` works across invocations.

            Objects are named by their URI (x-strata://STORE/Entity/pKEY, printed by `insert`) \
            or by the short form Entity/pKEY.

            Examples:
              strata demo
              strata new staff.strata --example employees
              strata insert staff.strata Department name=Research
              strata insert staff.strata Employee firstName=Ada lastName=Lovelace \\
                  salary=150000 department=@Department/p1
              strata fetch staff.strata Employee --where 'salary > 100000' --sort lastName
              strata undo staff.strata

            \(ToolExitStatus.helpText)
            """,
        version: ToolVersion.line(tool: "strata"),
        subcommands: [
            NewCommand.self, InfoCommand.self, InsertCommand.self, UpdateCommand.self, DeleteCommand.self,
            GetCommand.self, SpliceCommand.self, FetchCommand.self, UndoCommand.self, RedoCommand.self, HistoryCommand.self,
            ImportCommand.self, ExportCommand.self, CodegenCommand.self, ModelCommand.self, MigrateCommand.self, DemoCommand.self,
            PushCommand.self, PullCommand.self, SyncCommand.self, CloneCommand.self,
        ])

    /// Runs the command line; every failure is one `strata: error: ...` line on standard
    /// error (validation problems may follow) and the exit status of its kind
    /// (``ToolExitStatus``).
    static func main() {
        ToolRunner.main(StrataCommand.self, tool: "strata")
    }
}
