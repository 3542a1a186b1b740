import Synchronization

/// How often a document store took its writer lock and its state lock: what the tests of
/// the save path count (docs/ARCHITECTURE.md, "Save": a context's save takes the writer
/// lock once). One relaxed atomic add per acquisition.
package final class DocumentActivity: Sendable {
    private let writerCount = Atomic<Int>(0)
    private let stateCount = Atomic<Int>(0)

    /// Acquisitions of the writer lock (``DocumentStore/writer``) so far.
    package var writerAcquisitions: Int { writerCount.load(ordering: .relaxed) }
    /// Acquisitions of the state lock so far.
    package var stateAcquisitions: Int { stateCount.load(ordering: .relaxed) }

    func tookWriter() { writerCount.add(1, ordering: .relaxed) }
    func tookState() { stateCount.add(1, ordering: .relaxed) }
}
