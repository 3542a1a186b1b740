import ArgumentParser
import Foundation
import Strata

/// The `main` of `strata`, `strata-log` and `strata-postgres`: parses the command line,
/// applies the environment's settings, runs the command, and turns a failure into one
/// `TOOL: error: …` line on standard error and the exit status that names its kind
/// (``ToolExitStatus``; README.md, "Command line").
package enum ToolRunner {
    /// Runs `Command` as the program `tool` and exits.
    package static func main<Command: ParsableCommand>(_ command: Command.Type, tool: String) -> Never {
        do {
            var parsed: ParsableCommand
            if let problem = argumentCountProblem(CommandLine.arguments.dropFirst()) {
                fail(tool: tool, problem, status: ToolExitStatus.usage)
            }
            do {
                parsed = try Command.parseAsRoot()
            } catch {
                usageFailure(Command.self, tool: tool, error: error)
            }
            for warning in try ToolSettings.apply() { note("\(tool): warning: \(warning)") }
            try parsed.run()
            exit(0)
        } catch let error as StrataError {
            for line in ToolErrorText.verboseLines(for: error, tool: tool) { note(line) }
            fail(tool: tool, ToolErrorText.line(for: error), status: ToolExitStatus.status(for: error))
        } catch let error as ExitCode {
            exit(error.rawValue)
        } catch {
            usageFailure(Command.self, tool: tool, error: error)
        }
    }

    /// The most times one option may be given, and the most arguments in all: above Strata's
    /// own limits (1,000 sort keys or selected items, docs/LIMITS.md) and far below what
    /// ArgumentParser's parsing, which grows with the square of an option's repeats (5,000
    /// `--sort` took a minute), turns into a wait.
    static let maximumRepeats = 1_000
    static let maximumArguments = 20_000

    /// Why the command line is refused before parsing, or nil.
    static func argumentCountProblem(_ arguments: ArraySlice<String>) -> String? {
        if arguments.count > maximumArguments {
            return "\(arguments.count) arguments; at most \(maximumArguments) are allowed."
        }
        var repeats: [String: Int] = [:]
        for argument in arguments where argument.hasPrefix("--") {
            let name = String(argument.prefix { $0 != "=" })
            repeats[name, default: 0] += 1
        }
        guard let (name, count) = repeats.max(by: { $0.value < $1.value }), count > maximumRepeats else { return nil }
        return "\(name.prefix(40)) is given \(count) times; at most \(maximumRepeats) are allowed."
    }

    /// Writes `TOOL: error: MESSAGE` to standard error and exits with `status`.
    package static func fail(tool: String, _ message: String, status: Int32 = ToolExitStatus.failure) -> Never {
        let prefix = "\(tool): error: "
        note(message.hasPrefix(prefix) ? message : prefix + message)
        exit(status)
    }

    /// Writes a line to standard error.
    package static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// An error ArgumentParser reports (a usage error, `--help`, `--version`): one error
    /// line, a nearby command's name when the first argument names none, then
    /// ArgumentParser's usage line and where to read more.
    private static func usageFailure<Command: ParsableCommand>(_ command: Command.Type, tool: String, error: any Error) -> Never {
        let code = Command.exitCode(for: error)
        if code == .success { Command.exit(withError: error) }
        let full = Command.fullMessage(for: error)
        var lines = full.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var first = Command.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        if first.hasPrefix("Error: ") { first.removeFirst("Error: ".count) }
        first += subcommandSuggestion(Command.self)
        // ArgumentParser's text after its message: the usage line and "See '… --help'".
        if let usage = lines.firstIndex(where: { $0.hasPrefix("Usage: ") }) {
            lines = Array(lines[usage...]).filter { !$0.isEmpty }
        } else {
            lines = []
        }
        note("\(tool): error: \(first)")
        for line in lines { note(line) }
        exit(code.rawValue)
    }

    /// ` Did you mean 'fetch'?` when the first argument is not an option and names no
    /// subcommand of the root but is near one.
    private static func subcommandSuggestion<Command: ParsableCommand>(_ command: Command.Type) -> String {
        let names = Command.configuration.subcommands.map { $0._commandName }
        guard let word = CommandLine.arguments.dropFirst().first, !word.hasPrefix("-"), !names.isEmpty,
              !names.contains(word) else { return "" }
        return ToolSuggestions.clause(for: word, among: names)
    }
}
