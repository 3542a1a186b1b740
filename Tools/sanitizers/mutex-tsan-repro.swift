// ThreadSanitizer and Synchronization.Mutex on Linux: a correct program, reported as racy.
//
//   swiftc -swift-version 6 -sanitize=thread -g Tools/sanitizers/mutex-tsan-repro.swift -o /tmp/mutex-tsan-repro
//   /tmp/mutex-tsan-repro          # Mutex:  "Swift access race" warnings, and the total is exact
//   /tmp/mutex-tsan-repro nslock   # NSLock: no warning, the same exact total
//
// Four threads add to one dictionary, every change inside the lock's closure. The total
// comes out exact every time, so the lock does exclude the threads; yet with `Mutex`
// ThreadSanitizer reports the closures' accesses as races, and with `NSLock` (a
// pthread_mutex) it reports nothing. On Linux, `Mutex` locks with atomics and futex calls
// made inside libswiftSynchronization.so, which is not instrumented, so ThreadSanitizer
// never sees the lock's acquire and release and cannot know the accesses are ordered.
// Tools/sanitizers/tsan.supp cites this program for each Mutex site it suppresses.
import Foundation
import Synchronization

/// Four threads add to one dictionary, each change under a lock; the final sum proves the
/// lock excluded them. Run with `nslock` the same program uses NSLock (pthread_mutex).
final class Shared: @unchecked Sendable {
    let mutex = Mutex<[Int: Int]>([:])
    let lock = NSLock()
    var guarded: [Int: Int] = [:]
}

let useNSLock = CommandLine.arguments.dropFirst().first == "nslock"
let shared = Shared()
let group = DispatchGroup()
for _ in 0..<4 {
    group.enter()
    Thread {
        for i in 0..<10_000 {
            if useNSLock {
                shared.lock.withLock { shared.guarded[i % 64, default: 0] += 1 }
            } else {
                shared.mutex.withLock { $0[i % 64, default: 0] += 1 }
            }
        }
        group.leave()
    }.start()
}
group.wait()
let total = useNSLock ? shared.guarded.values.reduce(0, +) : shared.mutex.withLock { $0.values.reduce(0, +) }
print(useNSLock ? "NSLock" : "Mutex", "total", total, total == 40_000 ? "(exact: the lock excluded every thread)" : "(LOST UPDATES)")
