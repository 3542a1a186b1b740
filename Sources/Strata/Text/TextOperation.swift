import Foundation

/// One change to a text as the log records it and every replica applies it: characters
/// inserted between two others, or characters deleted, named by identity rather than
/// position (docs/TEXT.md, "Operations"). Applying an operation twice changes nothing
/// the second time.
package enum TextOperation: Hashable, Sendable {
    /// `scalars` inserted with the identities `id`, `id + 1`, …, after `originLeft` (nil:
    /// at the start) and before `originRight` (nil: at the end), as they were when the
    /// peer inserted them.
    case insert(id: TextElementID, originLeft: TextElementID?, originRight: TextElementID?, scalars: [Unicode.Scalar])
    /// The characters `start`, `start + 1`, … `start + count - 1` (one peer's, inserted
    /// together or not) deleted.
    case delete(start: TextElementID, count: Int)

    /// How many characters the operation inserts or deletes.
    package var count: Int {
        switch self {
        case .insert(_, _, _, let scalars): return scalars.count
        case .delete(_, let count): return count
        }
    }
}
