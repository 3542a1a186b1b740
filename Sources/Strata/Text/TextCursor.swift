import Foundation

/// A place in a text that stays with its characters: the caret or one end of a selection
/// that remote edits, undo and redo move along with the text around it (docs/TEXT.md,
/// "Cursors"), as Loro's and Yjs's cursors do.
///
/// A cursor is anchored to the character before it (or to the start of the text). Text
/// inserted or deleted elsewhere moves it along; when its character is deleted, it stays
/// where that character was, and when an undo in this context puts it back, it follows it. It is a value an editor can keep, compare and encode, and it
/// means the same in every context and on every replica of the text.
///
/// ```swift
/// let caret = try note.cursor(at: 5, forKey: "body")
/// // … other contexts' edits merge, the user undoes …
/// let position = try note.position(of: caret, forKey: "body")
/// ```
public struct TextCursor: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The peer and counter of the character before the cursor; nil at the start.
    let anchorPeer: UInt64?
    let anchorCounter: UInt32?

    init(anchor: TextElementID?) {
        anchorPeer = anchor?.peer
        anchorCounter = anchor?.counter
    }

    var anchor: TextElementID? {
        guard let anchorPeer, let anchorCounter else { return nil }
        return TextElementID(peer: anchorPeer, counter: anchorCounter)
    }

    /// The cursor at the start of every text.
    public static let start = TextCursor(anchor: nil)

    /// `after 12345@6`, or `start`.
    public var description: String { anchor.map { "after \($0)" } ?? "start" }
}

extension TextSequence {
    /// The cursor before the shown character at `position` (`count`: at the end).
    /// - Precondition: `0 <= position <= count`.
    package func cursor(at position: Int) -> TextCursor {
        precondition(position >= 0 && position <= count, "position \(position) is outside the text's \(count) characters")
        return TextCursor(anchor: position == 0 ? nil : identity(ofShown: position - 1))
    }

    /// Where `cursor` is now: the number of shown characters before it; nil when its
    /// character is not in this text.
    package func position(of cursor: TextCursor) -> Int? {
        guard let original = cursor.anchor else { return 0 }
        guard contains(original) else { return nil }
        // A character deleted and put back by an undo here: the cursor follows it.
        let anchor = current(original)
        let (chunk, run, offset) = location(of: anchor)
        var position = order.sum(.visible, before: chunk)
        for earlier in chunks[chunk].runs[..<run] { position += earlier.visibleLength }
        if !chunks[chunk].runs[run].isDeleted { position += offset + 1 }
        return position
    }

    /// Whether the character `id` (which the text holds) is deleted.
    func isDeleted(_ id: TextElementID) -> Bool {
        let (chunk, run, _) = location(of: id)
        return chunks[chunk].runs[run].isDeleted
    }
}

extension ManagedObject {
    /// A cursor before the character at `position` (Unicode scalars; the text's length: at
    /// its end) of a text attribute, which keeps its place among the characters as the
    /// text changes here and elsewhere.
    /// - Throws: `.unknownKey`; `.typeMismatch` for a key that is not a text;
    ///   `.invalidArgument` for a position outside the text.
    public func cursor(at position: Int, forKey key: String) throws -> TextCursor {
        let slot = try textSlot(forKey: key)
        return try requireContext().withText(of: self, slot: slot) { sequence in
            guard position >= 0, position <= sequence.count else {
                throw StrataError(.invalidArgument,
                                  "\(entity.name).\(key) has \(sequence.count) characters; position \(position) is outside them.",
                                  context: .init { $0.entity = entity.name; $0.key = key })
            }
            return sequence.cursor(at: position)
        }
    }

    /// Where a cursor is in a text attribute now (Unicode scalars).
    /// - Throws: `.unknownKey`; `.typeMismatch` for a key that is not a text;
    ///   `.invalidArgument` for a cursor made in another text.
    public func position(of cursor: TextCursor, forKey key: String) throws -> Int {
        let slot = try textSlot(forKey: key)
        return try requireContext().withText(of: self, slot: slot) { sequence in
            guard let position = sequence.position(of: cursor) else {
                throw StrataError(.invalidArgument, "The cursor \(cursor) is not in \(entity.name).\(key) of \(objectID): it was made in another text.",
                                  context: .init { $0.entity = entity.name; $0.key = key })
            }
            return position
        }
    }
}
