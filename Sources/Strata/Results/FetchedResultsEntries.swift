import Foundation

// What a FetchedResultsController keeps and works with while it follows its context: the
// sections' sorted entries and the bookkeeping of one change. They are types of their own,
// not nested in the generic controller: a type nested there is generic too, and the
// controller's code (compiled once for every `ResultType`, outside any caller's module)
// would copy, compare and sort them through value witnesses and metadata looked up at run
// time, for every entry a binary search reads (docs/ARCHITECTURE.md, "Fetched results",
// "Not generic inside"). The objects are held as `ManagedObject`; only `ResultType`s are admitted
// (FetchedResultsController.placement(of:) and the typed fetch of performFetch()).

/// One object in a section: what it is ordered by.
struct FetchedResultsEntry {
    /// An instance of the controller's `ResultType` (checked when admitted).
    let object: ManagedObject
    /// The ID it was ordered by (a save makes temporary IDs permanent; the entry moves then).
    var id: ManagedObjectID
    var keys: [PropertyValue]
}

/// A section's objects in order (a class, so its array is changed in place).
final class FetchedResultsSectionEntries {
    let name: String
    var entries: [FetchedResultsEntry] = []
    init(name: String) { self.name = name }
}

/// Where a member object is: enough to find it again by binary search.
struct FetchedResultsMember {
    var entry: FetchedResultsEntry
    var section: String
    /// The row the entry was put at: where it still is unless entries were put or taken
    /// before it since, which `FetchedResultsController.row(of:)` sees (another object
    /// there) before it searches.
    var rowHint: Int
}

/// One object a change concerns: its place before and after.
struct FetchedResultsTouch {
    let object: ManagedObject
    let oldID: ManagedObjectID?
    var oldSection: String?
    var oldRow = 0
    var newSection: String?
    var newRow = 0
}

/// One reported change with its object (for the delegate).
struct FetchedResultsReported {
    var change: FetchedResultsItemChange
    let object: ManagedObject
}

/// The changes of one diff, in the order the delegate hears of them.
struct FetchedResultsChangeList {
    var deletedSections: [(index: Int, name: String)] = []
    var insertedSections: [Int] = []
    var deletions: [FetchedResultsReported] = []
    var insertions: [FetchedResultsReported] = []
    var moves: [FetchedResultsReported] = []
    var updates: [FetchedResultsReported] = []
}
