import Foundation

/// Consecutive characters one peer inserted in one place: the unit a text stores, merges
/// and deletes (docs/TEXT.md, "Runs").
///
/// A run stands for a chain of characters in which each one's left origin is the one
/// before it and all share the run's right origin, so it can be split anywhere and the
/// halves mean what the run meant. A deleted run (a tombstone) keeps its identities and its
/// length and lets go of its characters.
struct TextRun: Sendable {
    /// The first character's identity; the others follow it in their peer's count.
    var id: TextElementID
    /// How many characters the run holds (deleted or not).
    var length: Int
    /// The character the first one was inserted after, when it was inserted; nil for the
    /// start of the text.
    var originLeft: TextElementID?
    /// The character the run was inserted before; nil for the end of the text.
    var originRight: TextElementID?
    /// The characters, as Unicode scalars; empty once deleted.
    var scalars: ContiguousArray<Unicode.Scalar>
    var isDeleted: Bool
    /// The UTF-8 bytes of the characters shown: where the run lies in the context's
    /// `String` is found from these without walking the string (0 once deleted).
    private(set) var utf8Count: Int

    init(id: TextElementID, length: Int, originLeft: TextElementID?, originRight: TextElementID?,
         scalars: ContiguousArray<Unicode.Scalar>, isDeleted: Bool) {
        self.id = id
        self.length = length
        self.originLeft = originLeft
        self.originRight = originRight
        self.scalars = scalars
        self.isDeleted = isDeleted
        utf8Count = isDeleted ? 0 : Self.utf8Count(of: scalars[...])
    }

    /// The UTF-8 bytes of `scalars`.
    static func utf8Count(of scalars: ArraySlice<Unicode.Scalar>) -> Int {
        var count = 0
        for scalar in scalars { count += UTF8.width(scalar) }
        return count
    }

    /// The characters the run shows: its length, or 0 when deleted.
    var visibleLength: Int { isDeleted ? 0 : length }

    /// Marks the run deleted, letting go of its characters.
    mutating func markDeleted() {
        isDeleted = true
        scalars = []
        utf8Count = 0
    }

    /// The identity of the run's last character.
    var lastID: TextElementID { id.advanced(by: length - 1) }

    /// Whether the character `other` is one of the run's.
    @inline(__always)
    func contains(_ other: TextElementID) -> Bool {
        other.peer == id.peer && other.counter >= id.counter && Int(other.counter - id.counter) < length
    }

    /// The position of the character `other` in the run (which holds it).
    @inline(__always)
    func offset(of other: TextElementID) -> Int { Int(other.counter - id.counter) }

    /// Splits the run before its character at `offset` (0 < offset < length): the run keeps
    /// the characters before, the run returned holds the rest, its left origin the last
    /// character kept.
    mutating func split(at offset: Int) -> TextRun {
        let rest = TextRun(
            id: id.advanced(by: offset), length: length - offset, originLeft: id.advanced(by: offset - 1),
            originRight: originRight, scalars: isDeleted ? [] : ContiguousArray(scalars[offset...]), isDeleted: isDeleted)
        if !isDeleted { scalars.removeSubrange(offset...) }
        length = offset
        utf8Count -= rest.utf8Count
        return rest
    }

    /// Whether `next`, placed right after this run, continues it: the same peer's next
    /// characters, inserted after this run's last one, before the same character, in the
    /// same state. Typing makes such runs, one character at a time.
    func isContinued(by next: TextRun) -> Bool {
        next.id.peer == id.peer && next.id.counter == id.counter &+ UInt32(length) && next.originLeft == lastID
            && next.originRight == originRight && next.isDeleted == isDeleted
    }

    /// Appends a run that ``isContinued(by:)``.
    mutating func append(_ next: TextRun) {
        length += next.length
        if !isDeleted { scalars.append(contentsOf: next.scalars) }
        utf8Count += next.utf8Count
    }
}
