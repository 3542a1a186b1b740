/// Receives a ``FetchedResultsController``'s changes, Core Data's
/// `NSFetchedResultsControllerDelegate`: between ``controllerWillChangeContent(_:)`` and
/// ``controllerDidChangeContent(_:)``, one call per section and per object that changed, in
/// the order of ``FetchedResultsDiff`` (deletions, deleted sections, inserted sections,
/// insertions, moves, updates). Every method has an empty default.
///
/// ```swift
/// final class List: FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
///                     at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType,
///                     newIndexPath: ResultIndexPath?) {
///         print(type, indexPath as Any, newIndexPath as Any)
///     }
/// }
/// ```
///
/// Calls come on the context's queue, during the flush, merge or save that changed the results.
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// Before the first change of a batch.
    func controllerWillChangeContent(_ controller: FetchedResultsController<some ManagedObject>)
    /// One object's change: `indexPath` is where it was (nil for an insertion),
    /// `newIndexPath` where it is now (nil for a deletion).
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
                    at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?)
    /// One section's change: an insertion (index after the change) or a deletion (index before).
    func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange section: FetchedResultsSection,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// After the last change of a batch.
    func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>)
}

extension FetchedResultsControllerDelegate {
    /// Does nothing.
    public func controllerWillChangeContent(_ controller: FetchedResultsController<some ManagedObject>) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange object: ManagedObject,
                           at indexPath: ResultIndexPath?, for type: FetchedResultsChangeType, newIndexPath: ResultIndexPath?) {}
    /// Does nothing.
    public func controller(_ controller: FetchedResultsController<some ManagedObject>, didChange section: FetchedResultsSection,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}
    /// Does nothing.
    public func controllerDidChangeContent(_ controller: FetchedResultsController<some ManagedObject>) {}
}

/// The kind of a change reported to a ``FetchedResultsControllerDelegate``.
public enum FetchedResultsChangeType: String, Hashable, Sendable, CaseIterable {
    /// Entered the results.
    case insert
    /// Left the results.
    case delete
    /// Moved (and may have changed).
    case move
    /// Changed without moving.
    case update
}

/// A section of a ``FetchedResultsController``'s results (Core Data's
/// `NSFetchedResultsSectionInfo`). A value read at one moment: read it again after a change.
public struct FetchedResultsSection {
    /// The section's name: the section key path's value as text ("" for NULL, or when the
    /// controller has no section key path).
    public let name: String
    /// The section's objects, in order.
    public let objects: [ManagedObject]
    /// The number of objects.
    public var numberOfObjects: Int { objects.count }
}
