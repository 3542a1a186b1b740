/// Strata's version as the tools print it (`strata --version`): kept here only, and
/// raised with each release note (docs/CHANGELOG.md's newest heading).
package enum ToolVersion {
    /// The version number: the release the tools belong to, `-dev` between releases.
    package static let number = "0.1.0-dev"

    /// `TOOL (Strata) VERSION`, the GNU tools' form (`ls (GNU coreutils) 9.4`), with
    /// `, debug build` for an unoptimized one, so that a slow run can be told from a slow tool.
    package static func line(tool: String) -> String {
        "\(tool) (Strata) \(number)\(isDebugBuild ? ", debug build" : "")"
    }

    /// Whether these tools were compiled without optimization (`Tools/install` without `--release`).
    package static var isDebugBuild: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }
}
