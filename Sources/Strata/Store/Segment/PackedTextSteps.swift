import Foundation

/// The bits of a format v5 text step's header byte (docs/FORMAT.md §19.4) and the
/// registers both ends of the codec keep while they go through a body's steps
/// (§19.5): a step names what it can by reference to the step before it, so that typing
/// — the next identity, after the character typed last, before the same character —
/// costs its header and its length.
enum PackedTextStep {
    /// Bits 0–1: the step's kind.
    static let kindMask: UInt8 = 0b11
    static let insertion: UInt8 = 0
    static let deletion: UInt8 = 1

    /// Insertion, bit 2: its identity is the one after the body's last inserted character.
    static let continues: UInt8 = 1 << 2
    /// Insertion, bits 3–4: the left origin (``OriginLeft``).
    static let leftShift: UInt8 = 3
    /// Insertion, bits 5–6: the right origin (``OriginRight``).
    static let rightShift: UInt8 = 5
    /// Insertion: the bits that may be set.
    static let insertionBits: UInt8 = 0b0111_1111

    /// Deletion, bit 2: its scalars are earlier in the body's text (a distance back
    /// follows), not the next ones.
    static let backReference: UInt8 = 1 << 2
    /// Deletion, bit 3: it takes back the last characters inserted — its start is the
    /// insert end minus its length, its scalars the text's last before the place — and
    /// writes neither (Backspace after typing).
    static let takesBack: UInt8 = 1 << 3
    /// Deletion: the bits that may be set.
    static let deletionBits: UInt8 = 0b0000_1111

    /// Where an insertion's left origin is.
    enum OriginLeft: UInt8 {
        /// None: at the start of the text.
        case absent = 0
        /// The identity before the insertion's first (same peer, counter − 1).
        case previousIdentity = 1
        /// Written: peer, then the counter as a difference from the insertion's.
        case written = 2
    }

    /// Where an insertion's right origin is.
    enum OriginRight: UInt8 {
        /// None: at the end of the text.
        case absent = 0
        /// The body's previous insertion's right origin (typing on at one place).
        case sameAsPrevious = 1
        /// The identity after the left origin (same peer, counter + 1).
        case afterLeft = 2
        /// Written: peer, then the counter as a difference from the left origin's (or, with
        /// none, the insertion's).
        case written = 3
    }

    /// What a step is written against: the body's previous steps (§19.5).
    struct Registers {
        /// The identity after the last character the body inserted: a continuing
        /// insertion's, and the base of a deletion's counter of that peer.
        var insertEnd: TextElementID?
        /// The right origin of the body's last insertion.
        var lastRight: TextElementID?
        /// How many scalars of the body's text the steps so far took.
        var cursor = 0

        /// The start of a deletion of `length` characters that takes back the last ones
        /// inserted, or nil when no insertion came before or it has fewer counters.
        func takenBackStart(length: Int) -> TextElementID? {
            guard let insertEnd, length >= 1, UInt64(length) <= UInt64(insertEnd.counter) else { return nil }
            return TextElementID(peer: insertEnd.peer, counter: insertEnd.counter - UInt32(length))
        }

        /// The counter a deletion's start of `peer` is written as a difference from.
        func deletionBase(for peer: UInt64) -> Int64 {
            if let insertEnd, insertEnd.peer == peer { return Int64(insertEnd.counter) }
            return 0
        }

        /// After an insertion of `count` characters from `id`.
        mutating func inserted(_ id: TextElementID, count: Int, right: TextElementID?) {
            insertEnd = id.advanced(by: count)
            lastRight = right
        }
    }

    /// The left origin's mode for an insertion at `id`.
    static func leftMode(_ left: TextElementID?, id: TextElementID) -> OriginLeft {
        guard let left else { return .absent }
        if left.peer == id.peer, id.counter > 0, left.counter == id.counter - 1 { return .previousIdentity }
        return .written
    }

    /// The right origin's mode, given the left origin and the registers.
    static func rightMode(_ right: TextElementID?, left: TextElementID?, registers: Registers) -> OriginRight {
        guard let right else { return .absent }
        if right == registers.lastRight { return .sameAsPrevious }
        if let left, left.peer == right.peer, left.counter < UInt32.max, right.counter == left.counter + 1 { return .afterLeft }
        return .written
    }
}
