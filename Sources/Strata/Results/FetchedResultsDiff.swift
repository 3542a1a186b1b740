/// The object IDs of a ``FetchedResultsController``'s results, section by section: a
/// `Sendable` picture of the list that can leave the context's queue.
public struct FetchedResultsSnapshot: Hashable, Sendable {
    /// One section: its name and its objects' IDs in order.
    public struct Section: Hashable, Sendable {
        /// The section's name (the value of the section key path as text; "" for NULL or
        /// when the controller has no section key path).
        public var name: String
        /// The IDs of the section's objects, in the results' order.
        public var objectIDs: [ManagedObjectID]

        /// Creates a section.
        public init(name: String, objectIDs: [ManagedObjectID]) {
            self.name = name
            self.objectIDs = objectIDs
        }
    }

    /// The sections in order.
    public var sections: [Section]

    /// Creates a snapshot.
    public init(sections: [Section] = []) { self.sections = sections }

    /// Every object ID, section after section.
    /// - Complexity: O(n).
    public var objectIDs: [ManagedObjectID] { sections.flatMap(\.objectIDs) }
}

/// One object's change in a ``FetchedResultsDiff``.
public struct FetchedResultsItemChange: Hashable, Sendable, CustomStringConvertible {
    /// The object (its ID after the change; a save turns temporary IDs into permanent ones).
    public var objectID: ManagedObjectID
    /// Where it was before the change (nil for an insertion).
    public var oldIndexPath: ResultIndexPath?
    /// Where it is after the change (nil for a deletion).
    public var newIndexPath: ResultIndexPath?

    /// Creates a change.
    public init(objectID: ManagedObjectID, oldIndexPath: ResultIndexPath?, newIndexPath: ResultIndexPath?) {
        self.objectID = objectID
        self.oldIndexPath = oldIndexPath
        self.newIndexPath = newIndexPath
    }

    /// `Employee/p3 [0, 2] → [1, 0]`, for logs.
    public var description: String {
        "\(objectID) \(oldIndexPath.map(\.description) ?? "-") → \(newIndexPath.map(\.description) ?? "-")"
    }
}

/// What one change of the context did to a ``FetchedResultsController``'s results, in the
/// terms of a list view's batch update (UIKit's `performBatchUpdates`, AppKit's
/// `beginUpdates`/`endUpdates`): deletions and move sources by index paths *before* the
/// change, insertions and move destinations by index paths *after* it.
///
/// Applied one step at a time, the diff turns the previous snapshot into the new one in this
/// order: remove the ``deletions`` and the sources of the ``moves`` (highest old index path
/// first); remove the ``deletedSections`` (highest first; they are empty by then); insert the
/// ``insertedSections`` (lowest first, empty); insert the ``insertions`` and the
/// destinations of the ``moves`` (lowest new index path first). ``updates`` are objects
/// that changed without moving relative to the others: reload them (old and new index
/// paths are both given). Every object that leaves the results is a deletion, those of a
/// deleted section included, and every object that enters is an insertion, those of an
/// inserted section included. A moved object may also have changed.
public struct FetchedResultsDiff: Hashable, Sendable {
    /// Sections removed, by index before the change, highest first.
    public var deletedSections: [Int] = []
    /// Sections added, by index after the change, lowest first.
    public var insertedSections: [Int] = []
    /// Objects removed from the results, by old index path, highest first.
    public var deletions: [FetchedResultsItemChange] = []
    /// Objects added to the results, by new index path, lowest first.
    public var insertions: [FetchedResultsItemChange] = []
    /// Objects that moved, lowest new index path first.
    public var moves: [FetchedResultsItemChange] = []
    /// Objects that changed in place (relative to the objects that did not move).
    public var updates: [FetchedResultsItemChange] = []

    /// Creates an empty diff.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletions.isEmpty && insertions.isEmpty
            && moves.isEmpty && updates.isEmpty
    }
}

/// One element of ``FetchedResultsController/changes()``: the results after a change and the
/// diff from the previous element's snapshot.
public struct FetchedResultsUpdate: Hashable, Sendable {
    /// The results now.
    public var snapshot: FetchedResultsSnapshot
    /// How they got here from the previous snapshot (empty for the first element).
    public var diff: FetchedResultsDiff

    /// Creates an update.
    public init(snapshot: FetchedResultsSnapshot, diff: FetchedResultsDiff) {
        self.snapshot = snapshot
        self.diff = diff
    }
}
