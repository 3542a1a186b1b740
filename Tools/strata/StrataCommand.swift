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
            """,
        subcommands: [
            NewCommand.self, InfoCommand.self, InsertCommand.self, UpdateCommand.self, DeleteCommand.self,
            GetCommand.self, FetchCommand.self, UndoCommand.self, RedoCommand.self, HistoryCommand.self,
            ImportCommand.self, ExportCommand.self, CodegenCommand.self, ModelCommand.self, MigrateCommand.self, DemoCommand.self,
            PushCommand.self, PullCommand.self, SyncCommand.self, CloneCommand.self,
        ])

    /// Runs the command line; every failure is one `strata: error: ...` line on standard
    /// error (validation problems may follow) and a non-zero exit status.
    static func main() {
        do {
            var command = try parseAsRoot()
            for warning in try ToolSettings.apply() {
                FileHandle.standardError.write(Data(("strata: warning: " + warning + "\n").utf8))
            }
            try command.run()
        } catch let error as StrataError {
            for line in ToolErrorText.verboseLines(for: error, tool: "strata") { CommandOutput.note(line) }
            CommandOutput.fail(ToolErrorText.line(for: error))
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) }
            let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            CommandOutput.fail(message, status: code.rawValue)
        }
    }
}
