import Foundation

/// One generation of a document — the document as one save left it — that a context can
/// pin its reads to (Core Data's `NSQueryGenerationToken`). See
/// ``ManagedObjectContext/setQueryGenerationFrom(_:)`` and docs/SEMANTICS.md, "Query
/// generations".
///
/// ```swift
/// try context.setQueryGenerationFrom(.current)           // pin to the newest save now
/// let pinned = context.queryGenerationToken!              // stands for that save
/// // ... other contexts and processes save; context's fetches and faults still see `pinned` ...
/// try context.setQueryGenerationFrom(.current)           // move forward
/// try context.setQueryGenerationFrom(QueryGenerationToken(transaction.token))   // a save from history
/// ```
///
/// A token stands for a save: the sequence of the segment it wrote, as a
/// ``PersistentHistoryToken`` does. Tokens compare in save order (``current`` after every
/// save); tokens of two documents are not comparable in meaning.
public struct QueryGenerationToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The save's segment sequence; nil for ``current``.
    let sequence: UInt64?
    /// The identifier of the document store the save is in; nil when the token was made
    /// from a history token (it then names a save of the coordinator's only document).
    let storeIdentifier: String?

    /// Not a generation but a request: pin to the newest save of the document at the
    /// moment ``ManagedObjectContext/setQueryGenerationFrom(_:)`` is called.
    public static let current = QueryGenerationToken(sequence: nil, storeIdentifier: nil)

    init(sequence: UInt64?, storeIdentifier: String?) {
        self.sequence = sequence
        self.storeIdentifier = storeIdentifier
    }

    /// The generation a save from persistent history left: pinning to it shows the
    /// document as it was right after that save (0: before the first save).
    public init(_ historyToken: PersistentHistoryToken) {
        self.init(sequence: historyToken.sequence, storeIdentifier: nil)
    }

    /// The save as a persistent history token; nil for ``current``.
    public var historyToken: PersistentHistoryToken? { sequence.map(PersistentHistoryToken.init(sequence:)) }

    /// Whether this is ``current``.
    public var isCurrent: Bool { sequence == nil }

    /// "current", or the save's sequence (with the document's identifier when known).
    public var description: String {
        guard let sequence else { return "current" }
        return storeIdentifier.map { "\(sequence)@\($0)" } ?? String(sequence)
    }

    /// Whether `lhs` stands for an earlier save than `rhs`; ``current`` is after every save.
    public static func < (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool {
        switch (lhs.sequence, rhs.sequence) {
        case (nil, _): return false
        case (_, nil): return true
        case (let left?, let right?):
            return left != right ? left < right : (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "")
        }
    }
}
