import Foundation

/// Writes a format v5 body's text edits (docs/FORMAT.md §19): made from every splice the
/// body will hold before anything is written, it knows the body's peer table, text and step
/// lengths (§19.2, §19.3), which come before the groups; then it writes each splice's steps
/// in body order against the registers of §19.5.
///
/// A deletion's scalars are usually characters the same body typed a moment before (a
/// typo taken back): they are then named by their place in the body's text instead of
/// being written again (§19.4). The place is looked up among the last insertions of the
/// peer and checked scalar by scalar, so what is referred to is always what was deleted.
final class TextEditPacker {
    /// How a deletion names its scalars.
    private enum Deletion {
        /// The text's next scalars.
        case inText
        /// The scalars `distance` back in the text.
        case refersBack(distance: Int)
        /// The last characters inserted, the text's last scalars before the place.
        case takesBack
    }

    /// The peers the steps name, ascending (§19.2).
    let peers: [UInt64]
    private let peerIndexes: [UInt64: Int]
    /// The body's text: every scalar its steps carry, in step order (§19.3).
    let text: String
    /// Every step's length, in step order, as varints (§19.3).
    let lengths: [UInt8]
    /// For each deletion step, in body order, how it names its scalars.
    private let deletions: [Deletion]
    private var nextDeletion = 0
    private var registers = PackedTextStep.Registers()
    /// The object and slot of the body's last splice (tag `07` repeats them, §19.6).
    private var lastTarget: (id: ManagedObjectID, slot: Int)?

    /// How many of a peer's latest insertions a deletion's scalars are looked for in: a
    /// typo is taken back within a few steps, and the search stays O(1) per deletion.
    static let insertionsSearched = 64

    /// Plans the body of `edits`, the splices' edits in the order they will be written.
    init(edits: [TextEdit]) {
        var peerSet = Set<UInt64>()
        var scalars: [Unicode.Scalar] = []
        var lengths = ByteWriter()
        var insertions: [UInt64: [(start: UInt32, textIndex: Int, count: Int)]] = [:]
        var deletions: [Deletion] = []
        var registers = PackedTextStep.Registers()
        func locate(_ start: TextElementID, _ deleted: [Unicode.Scalar]) -> Int? {
            guard let list = insertions[start.peer] else { return nil }
            for insertion in list.reversed().prefix(Self.insertionsSearched) {
                let offset = Int64(start.counter) - Int64(insertion.start)
                guard offset >= 0, offset < Int64(insertion.count) else { continue }
                let index = insertion.textIndex + Int(offset)
                guard index + deleted.count <= scalars.count, scalars[index..<index + deleted.count].elementsEqual(deleted) else {
                    return nil
                }
                return index
            }
            return nil
        }
        for edit in edits {
            for step in edit.steps {
                switch step {
                case .insert(let id, let left, let right, let inserted):
                    peerSet.insert(id.peer)
                    if let left { peerSet.insert(left.peer) }
                    if let right { peerSet.insert(right.peer) }
                    insertions[id.peer, default: []].append((id.counter, scalars.count, inserted.count))
                    scalars += inserted
                    lengths.writeVarint(UInt64(inserted.count))
                    registers.inserted(id, count: inserted.count, right: right)
                case .delete(let start, let deleted):
                    peerSet.insert(start.peer)
                    lengths.writeVarint(UInt64(deleted.count))
                    if let index = locate(start, deleted) {
                        let distance = scalars.count - index
                        let takesBack = distance == deleted.count && registers.takenBackStart(length: deleted.count) == start
                        deletions.append(takesBack ? .takesBack : .refersBack(distance: distance))
                    } else {
                        deletions.append(.inText)
                        scalars += deleted
                    }
                case .restore:
                    continue   // refused when written
                }
            }
        }
        peers = peerSet.sorted()
        peerIndexes = Dictionary(uniqueKeysWithValues: peers.enumerated().map { ($0.element, $0.offset) })
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        text = String(view)
        self.lengths = lengths.bytes
        self.deletions = deletions
    }

    /// Writes the peer table (§19.2), the body's text and its step lengths (§19.3).
    func writeTables(to out: inout ByteWriter) {
        out.writeVarint(UInt64(peers.count))
        for peer in peers { out.writeVarint(peer) }
        out.writeString(text)
        out.writeBytes(lengths)
    }

    /// Whether a splice of `id`'s `slot` names the previous splice's object and slot, and
    /// so is written with tag `07` (§19.6). Records it as the last one either way.
    func repeatsTarget(_ id: ManagedObjectID, slot: Int) -> Bool {
        defer { lastTarget = (id, slot) }
        guard let lastTarget else { return false }
        return lastTarget.id == id && lastTarget.slot == slot
    }

    /// Writes an edit's step count and steps (§19.4); their lengths are in the table.
    /// - Throws: `.invalidArgument` for a restore (a context gives it identities first).
    func write(_ edit: TextEdit, to out: inout ByteWriter) throws {
        out.writeVarint(UInt64(edit.steps.count))
        for step in edit.steps {
            switch step {
            case .insert(let id, let left, let right, let scalars):
                let continues = registers.insertEnd == id
                let leftMode = PackedTextStep.leftMode(left, id: id)
                let rightMode = PackedTextStep.rightMode(right, left: left, registers: registers)
                out.writeByte(PackedTextStep.insertion | (continues ? PackedTextStep.continues : 0)
                              | leftMode.rawValue << PackedTextStep.leftShift | rightMode.rawValue << PackedTextStep.rightShift)
                if !continues {
                    writePeer(id.peer, to: &out)
                    out.writeVarint(UInt64(id.counter))
                }
                if leftMode == .written, let left {
                    writePeer(left.peer, to: &out)
                    out.writeZigzag(Int64(left.counter) - Int64(id.counter))
                }
                if rightMode == .written, let right {
                    writePeer(right.peer, to: &out)
                    out.writeZigzag(Int64(right.counter) - Int64(left?.counter ?? id.counter))
                }
                registers.inserted(id, count: scalars.count, right: right)
                registers.cursor += scalars.count
            case .delete(let start, let scalars):
                let deletion = deletions[nextDeletion]
                nextDeletion += 1
                switch deletion {
                case .takesBack:
                    out.writeByte(PackedTextStep.deletion | PackedTextStep.takesBack)
                case .refersBack(let distance):
                    out.writeByte(PackedTextStep.deletion | PackedTextStep.backReference)
                    writeStart(start, to: &out)
                    out.writeVarint(UInt64(distance))
                case .inText:
                    out.writeByte(PackedTextStep.deletion)
                    writeStart(start, to: &out)
                    registers.cursor += scalars.count
                }
            case .restore:
                throw StrataError(.invalidArgument, "A text edit to save still holds a restore without identities.")
            }
        }
    }

    /// A deletion's start: its peer, then its counter as a difference from the base.
    private func writeStart(_ start: TextElementID, to out: inout ByteWriter) {
        writePeer(start.peer, to: &out)
        out.writeZigzag(Int64(start.counter) - registers.deletionBase(for: start.peer))
    }

    /// A peer's index in the table, written only when the table holds more than one.
    private func writePeer(_ peer: UInt64, to out: inout ByteWriter) {
        guard peers.count > 1, let index = peerIndexes[peer] else { return }
        out.writeVarint(UInt64(index))
    }
}
