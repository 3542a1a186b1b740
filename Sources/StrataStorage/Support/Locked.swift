import Foundation

/// A value guarded by a lock: the one way Strata shares mutable state between threads.
///
/// It has `Synchronization.Mutex`'s shape (`withLock`), but locks with `NSLock`, a pthread
/// mutex. On Linux `Mutex` locks with atomics and futex calls inside an uninstrumented
/// library, so ThreadSanitizer never sees it taken and reports every guarded access as a
/// race; pthread mutexes it does see, so the sanitizer checks Strata's locking instead of
/// being told to look away (docs/RELIABILITY.md, "Sanitizers").
package final class Locked<Value>: @unchecked Sendable {
    // Not for a lock that guards no value: ThreadSanitizer reports the `inout` access to a
    // zero-sized `Value` (a `Locked(())`) as a race on the object itself. Use an `NSLock`.
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
