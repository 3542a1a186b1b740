import Foundation

/// The identity of one character ever inserted into a text: the peer that inserted it and
/// that peer's count of the characters it inserted before (docs/TEXT.md, "Identities").
///
/// A character keeps its identity for ever, wherever other edits move it and after it is
/// deleted: that is what lets two replicas that applied the same edits in different orders
/// agree on one text, and a cursor stay on its character.
package struct TextElementID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The peer that inserted the character (a replica, process or context of the text).
    package var peer: UInt64
    /// The character's number among the peer's insertions, from 0.
    package var counter: UInt32

    package init(peer: UInt64, counter: UInt32) {
        self.peer = peer
        self.counter = counter
    }

    /// The identity `count` characters later in the same peer's insertions.
    @inline(__always)
    package func advanced(by count: Int) -> TextElementID {
        TextElementID(peer: peer, counter: counter &+ UInt32(truncatingIfNeeded: count))
    }

    package static func < (lhs: TextElementID, rhs: TextElementID) -> Bool {
        lhs.peer != rhs.peer ? lhs.peer < rhs.peer : lhs.counter < rhs.counter
    }

    package var description: String { "\(peer)@\(counter)" }
}
