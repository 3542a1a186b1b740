import ArgumentParser

/// The document a command works on: the first argument of almost every `strata` and
/// `strata-log` command, declared once and shared through `@OptionGroup`.
package struct DocumentArgument: ParsableArguments {
    /// The document's path.
    @Argument(help: "The document.")
    package var document: String

    package init() {}

    /// An empty path names the working directory, never a document.
    package func validate() throws {
        guard !document.isEmpty else { throw ValidationError("The document path is empty: name a .strata file.") }
    }
}

/// `--json`: JSON for scripts instead of a table for people, shared through `@OptionGroup`.
package struct JSONFlag: ParsableArguments {
    /// Whether to print JSON.
    @Flag(help: "Print JSON.")
    package var json = false

    package init() {}
}
