import Foundation

/// Where another of Strata's programs is installed: beside the running one first (a build
/// folder, or the bin directory `Tools/install` fills), then the first on `PATH`.
package enum InstalledTool {
    /// The path of `tool`, or nil when it is neither beside this program nor on `PATH`.
    package static func path(of tool: String) -> String? {
        var directories: [String] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent().path)
        }
        directories += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return directories.lazy.map { ($0 as NSString).appendingPathComponent(tool) }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
