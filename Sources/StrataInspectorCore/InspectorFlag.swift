import Foundation

/// A flag one thread sets and others read.
final class InspectorFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// Whether it was set.
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Sets it.
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
