import ArgumentParser

/// The document a command works on: the first argument of almost every `strata` and
/// `strata-log` command, declared once and shared through `@OptionGroup`.
package struct DocumentArgument: ParsableArguments {
    /// The document's path.
    @Argument(help: "The document.", completion: ToolCompletion.document)
    package var document: String

    package init() {}

    /// An empty path names the working directory, never a document; `-` (standard input
    /// or output) cannot be one either.
    package func validate() throws {
        guard !document.isEmpty else { throw ValidationError("The document path is empty: name a .strata file.") }
        guard document != ToolStandardStreams.dash else { throw ValidationError(ToolStandardStreams.message(role: "The document")) }
    }
}

/// `--json`: JSON for scripts instead of a table for people, shared through `@OptionGroup`.
package struct JSONFlag: ParsableArguments {
    /// Whether to print JSON.
    @Flag(help: "Print JSON.")
    package var json = false

    package init() {}
}

/// What the shells' completion scripts (`--generate-completion-script bash|zsh|fish`)
/// offer for the tools' file arguments (README.md, "Command line").
package enum ToolCompletion {
    /// Documents: `.strata` files.
    package static let document = CompletionKind.file(extensions: ["strata"])
    /// Models: JSON models and Xcode's `.xcdatamodeld` bundles and `.xcdatamodel` versions.
    package static let model = CompletionKind.file(extensions: ["json", "xcdatamodeld", "xcdatamodel"])
    /// Import files: JSON arrays and CSV.
    package static let importFile = CompletionKind.file(extensions: ["json", "csv"])
}
