import Dispatch
import Foundation

extension ManagedObjectContext {
    /// How a context is tied to threads: Core Data's `NSManagedObjectContextConcurrencyType`.
    public enum ConcurrencyType: Sendable, Hashable, CustomStringConvertible {
        /// Used directly from the one thread or task that owns it (the default): no queue,
        /// no hop. `perform` and
        /// ``ManagedObjectContext/performAndWait(_:)`` run their body at once, on the caller.
        case confinement
        /// Owns a private serial queue: use it, and its objects, only inside
        /// `perform` or
        /// ``ManagedObjectContext/performAndWait(_:)``, from any thread or task.
        case privateQueue
        /// Tied to the main queue, for the user interface: use it on the main thread, or
        /// through `perform` and `performAndWait` from elsewhere.
        case mainQueue

        /// The case's name.
        public var description: String {
            switch self {
            case .confinement: "confinement"
            case .privateQueue: "privateQueue"
            case .mainQueue: "mainQueue"
            }
        }
    }

    /// Runs `body` on the context's queue and waits for it; at once when already there (a
    /// nested call) or for a confinement context. Returns what `body` returns. The block is
    /// an event: at its end (the outermost one's) pending changes are processed and the
    /// undo manager's event group is closed.
    ///
    /// ```swift
    /// let count = try background.performAndWait { try background.count(for: request) }
    /// ```
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        guard let queue = workQueue, !isOnWorkQueue else { return try withEvent(body) }
        return try queue.sync { try withEvent(body) }
    }

    /// Runs `body` on the context's queue and resumes with what it returns. Objects stay
    /// inside: pass object IDs (Sendable) in and out. The block is an event, as for
    /// ``performAndWait(_:)``.
    ///
    /// ```swift
    /// let background = ManagedObjectContext(coordinator: coordinator, concurrencyType: .privateQueue)
    /// let id = try await background.perform {
    ///     let ada = try background.insertObject(forEntityName: "Employee")
    ///     try ada.setValue("Ada", forKey: "firstName")
    ///     try background.save()
    ///     return ada.objectID
    /// }
    /// ```
    ///
    /// There is no fire-and-forget variant: a save nobody awaits could still be running
    /// when the process exits, and be lost (docs/SEMANTICS.md §7). Wrap the call in a `Task` and
    /// keep the task to await it if the caller must not wait.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard let queue = workQueue, !isOnWorkQueue else { return try withEvent(body) }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.withEvent(body) }) }
        }
    }

    /// The same for a body that cannot fail.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        guard let queue = workQueue, !isOnWorkQueue else { return withEvent(body) }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.withEvent(body)) }
        }
    }

    /// Whether the caller runs on the context's queue (always true for confinement).
    var isOnWorkQueue: Bool {
        switch concurrencyType {
        case .confinement: true
        // Not only `Thread.isMainThread`: with an async `main` on Linux, blocks on the main
        // queue may run on another thread. The queue itself is marked.
        case .mainQueue: Thread.isMainThread || DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        case .privateQueue: DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
        }
    }

    /// Debug builds stop at a queue context used off its queue, as Core Data's concurrency
    /// debugging does; release builds check nothing.
    @inline(__always)
    func checkQueue(_ function: StaticString = #function) {
        #if DEBUG
        if concurrencyType != .confinement && !isOnWorkQueue {
            preconditionFailure("\(function) called on \(withArticle(concurrencyType)) context off its queue: use perform or performAndWait.")
        }
        #endif
    }

    static func makeWorkQueue(_ type: ConcurrencyType) -> DispatchQueue? {
        switch type {
        case .confinement: return nil
        case .privateQueue: return DispatchQueue(label: "strata.context")
        case .mainQueue:
            DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
            return DispatchQueue.main
        }
    }

    /// Marks the main queue (set by every main-queue context; the same mark each time).
    static let mainQueueKey = DispatchSpecificKey<Bool>()
}
