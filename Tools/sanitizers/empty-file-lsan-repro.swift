// LeakSanitizer and Foundation's Data(contentsOf:) on Linux: reading an empty file leaks.
//
//   swiftc -sanitize=address -g Tools/sanitizers/empty-file-lsan-repro.swift -o /tmp/empty-file-lsan-repro
//   /tmp/empty-file-lsan-repro         # "Direct leak of 12288 byte(s) in 3 object(s)": 4 KiB a read
//   /tmp/empty-file-lsan-repro full    # the same reads of a 5-byte file: nothing
//
// A real leak, in FoundationEssentials' readBytesFromFile: for a file whose size is 0 it
// reads into a 4 KiB buffer and, getting no bytes, returns an empty Data without freeing
// the buffer. The CLI tests read every child process's (mostly empty) standard error this
// way; Tools/sanitizers/lsan.supp cites this program for the suppression.
import Foundation

let directory = FileManager.default.temporaryDirectory
let empty = directory.appendingPathComponent("empty-file-lsan-repro.empty")
let full = directory.appendingPathComponent("empty-file-lsan-repro.full")
_ = FileManager.default.createFile(atPath: empty.path, contents: nil)
_ = FileManager.default.createFile(atPath: full.path, contents: Data("hello".utf8))
let file = CommandLine.arguments.dropFirst().first == "full" ? full : empty
for _ in 0..<3 { _ = try Data(contentsOf: file).count }
