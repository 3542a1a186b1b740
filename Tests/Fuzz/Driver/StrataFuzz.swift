import Foundation
import StrataFuzzTargets

/// `strata-fuzz TARGET [ARGUMENTS…]`: one executable for every fuzz target
/// (``FuzzTarget``; Tools/fuzz.sh runs them).
///
/// Built with `-sanitize=fuzzer,address -DSTRATA_FUZZING` it hands the remaining arguments
/// (corpus folders, libFuzzer's `-flags`, inputs to replay) to libFuzzer's driver. Built
/// normally it replays the files and folders given, printing how each input ended, so that
/// a kept crasher can be looked at without the fuzzer build.
@main
struct StrataFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: strata-fuzz TARGET [libFuzzer arguments | files…]\ntargets: \(names)\n".utf8))
            exit(2)
        }
        #if STRATA_FUZZING
        LibFuzzer.run(target, arguments: [arguments[0]] + arguments.dropFirst(2))
        #else
        replay(target, paths: Array(arguments.dropFirst(2)))
        #endif
    }

    /// Runs each file (a folder: each file in it) and prints how it ended.
    static func replay(_ target: FuzzTarget, paths: [String]) {
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            let children = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []
            files += children.isEmpty ? [url] : children.sorted { $0.path < $1.path }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                print("\(file.path): cannot be read")
                continue
            }
            switch target.run([UInt8](data)) {
            case .accepted: print("\(file.path): accepted")
            case .refused(let error): print("\(file.path): refused: \(error)")
            }
        }
    }
}
