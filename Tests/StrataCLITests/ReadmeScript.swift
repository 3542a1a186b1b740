import Foundation

/// The shell blocks of a Markdown file, as a reader would type them: ```` ```sh ```` blocks
/// (every line a command, each expected to succeed) and ```` ```console ```` blocks (`$ `
/// lines are commands, the lines up to the next one what they print).
///
/// A block whose preceding line is `<!-- readme-test: skip: REASON -->` is kept with its
/// reason and not run (a block that builds or tests the package itself, or needs a server);
/// `<!-- readme-test: in DIR -->` runs it in DIR, relative to the package root, instead of
/// the test's scratch directory.
struct ReadmeScript {
    /// One fenced block.
    struct Block {
        enum Kind { case shell, console }
        var kind: Kind
        /// The line of the opening fence, from 1.
        var line: Int
        var commands: [Command]
        var skipReason: String?
        var directory: String?
    }

    /// One command and, in a console block, the lines shown after it.
    struct Command {
        var text: String
        var line: Int
        var expectedOutput: [String]
    }

    var blocks: [Block]

    init(markdown: String) {
        let lines = markdown.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence == "```sh" || fence == "```console" else { index += 1; continue }
            let previous = index > 0 ? lines[index - 1].trimmingCharacters(in: .whitespaces) : ""
            var body: [(String, Int)] = []
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
                body.append((lines[end], end + 1))
                end += 1
            }
            let kind: Block.Kind = fence == "```sh" ? .shell : .console
            blocks.append(Block(kind: kind, line: index + 1, commands: Self.commands(body, kind: kind),
                                skipReason: Self.marker("skip:", in: previous),
                                directory: Self.marker("in", in: previous)))
            index = end + 1
        }
        self.blocks = blocks
    }

    /// `REASON` from `<!-- readme-test: skip: REASON -->`.
    private static func marker(_ name: String, in line: String) -> String? {
        let prefix = "<!-- readme-test: \(name) "
        guard line.hasPrefix(prefix), line.hasSuffix("-->") else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(3)).trimmingCharacters(in: .whitespaces)
    }

    /// Joins `\`-continued lines; in a console block, gathers each command's output.
    private static func commands(_ body: [(String, Int)], kind: Block.Kind) -> [Command] {
        var commands: [Command] = []
        var pending: (text: String, line: Int)?
        for (text, line) in body {
            if var open = pending {
                open.text += "\n" + text
                pending = text.hasSuffix("\\") ? open : nil
                if pending == nil { commands.append(Command(text: open.text, line: open.line, expectedOutput: [])) }
                continue
            }
            switch kind {
            case .shell:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                if text.hasSuffix("\\") { pending = (text, line) } else { commands.append(Command(text: text, line: line, expectedOutput: [])) }
            case .console:
                if text.hasPrefix("$ ") {
                    let command = String(text.dropFirst(2))
                    if command.hasSuffix("\\") { pending = (command, line) } else { commands.append(Command(text: command, line: line, expectedOutput: [])) }
                } else if !commands.isEmpty {
                    commands[commands.count - 1].expectedOutput.append(text)
                }
            }
        }
        return commands
    }
}

/// What the README shows and what a run prints, made comparable: the parts that differ
/// from run to run (store identifiers, times, the directory) replaced by placeholders.
enum ReadmeOutput {
    /// The directory the README's examples show (`/tmp/readme/staff.strata`).
    static let shownDirectory = "/tmp/readme"

    static func normalized(_ text: String, directory: String) -> String {
        var text = text.replacingOccurrences(of: directory, with: shownDirectory)
        let patterns = [
            ("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", "<UUID>"),
            ("[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z?", "<TIME>"),
            ("\\.bak-[0-9TZ:-]+", ".bak-<TIME>"),
        ]
        for (pattern, placeholder) in patterns {
            text = text.replacingOccurrences(of: pattern, with: placeholder, options: .regularExpression)
        }
        // Trailing spaces are invisible in the README.
        return text.components(separatedBy: "\n")
            .map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }
}
