/// The position of an object in a ``FetchedResultsController``'s results: a section and an
/// item within it.
///
/// Strata's own type rather than Foundation's `IndexPath`: two integers, `Sendable`,
/// `Comparable` in list order, and the same on every platform.
///
/// ```swift
/// let first = ResultIndexPath(item: 0, section: 0)
/// ```
public struct ResultIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The item's index within its section.
    public var item: Int

    /// Creates an index path.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    /// Section first, then item: the order of a list.
    public static func < (lhs: ResultIndexPath, rhs: ResultIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `[section, item]`.
    public var description: String { "[\(section), \(item)]" }
}
