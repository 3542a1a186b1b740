import Foundation

/// A seam for the fault-injection tests: the file calls ``AtomicFileWriter`` makes itself —
/// writing, syncing and renaming the files recovery and the export commands write beside a
/// document — ask it first, so a test can fail the Nth one as a full or failing disk would.
/// Nil (always, outside those tests) costs one uncontended lock per call.
package enum FileWriteFaults {
    /// A kind of call.
    package enum Call: Sendable {
        case write, sync, rename
    }

    /// Asked before each call with the target path; an `errno` value fails the call.
    package static let inject = Locked<(@Sendable (Call, String) -> Int32?)?>(nil)

    /// The `errno` the call must fail with, if a test said so.
    static func failure(_ call: Call, _ path: String) -> Int32? {
        inject.withLock { $0 }?(call, path)
    }
}
