import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Format v5 (docs/FORMAT.md §19) beyond its golden files: typing of several peers round
/// trips through it exactly as through v4, a save's folding of keystrokes keeps what they
/// mean, and every malformed packed body is refused with the segment and the byte.
@Suite struct SegmentV5Tests {
    static let storeTag = SegmentFixture.storeTag

    /// Random typing, backspacing and replacing by `peers` into a text, a keystroke per edit:
    /// the edits as a context logs them.
    static func typing(_ count: Int, peers: [UInt64], using rng: inout SeededGenerator) -> (edits: [TextEdit], base: String) {
        let base = "Hello, world"
        var text = TextSequence(base: base)
        var edits: [TextEdit] = []
        var caret = text.count
        for _ in 0..<count {
            let peer = peers.randomElement(using: &rng)!
            if Int.random(in: 0..<10, using: &rng) == 0 { caret = Int.random(in: 0...text.count, using: &rng) }
            let steps: [TextEdit.Step]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                let scalar = ["a", "b", " ", "é", "✓", "😀", "\n"].randomElement(using: &rng)!.unicodeScalars.first!
                steps = text.replace(at: caret, length: 0, with: [scalar], peer: peer)
                caret += 1
            case 6..<9 where caret > 0:
                steps = text.replace(at: caret - 1, length: 1, with: [], peer: peer)
                caret -= 1
            default:
                let length = min(Int.random(in: 1...3, using: &rng), text.count - caret)
                steps = text.replace(at: caret, length: length, with: Array("xyz".unicodeScalars), peer: peer)
                caret += 3
            }
            if !steps.isEmpty { edits.append(TextEdit(steps: steps)) }
        }
        return (edits, base)
    }

    static func segment(_ edits: [TextEdit], model: ManagedObjectModel, perGroup: Int) -> Segment {
        let note = ManagedObjectID(entity: model.entitiesByName["Note"]!, storeTag: storeTag, primaryKey: 3)
        var groups: [SegmentGroup] = []
        for (index, start) in stride(from: 0, to: edits.count, by: perGroup).enumerated() {
            let operations = edits[start..<min(start + perGroup, edits.count)].map { ChangeOperation.splice(note, slot: 2, edit: $0) }
            groups.append(SegmentGroup(id: UInt64(100 + index), kind: index % 7 == 6 ? .undo : .user,
                                       revertsGroup: index % 7 == 6 ? UInt64(99 + index) : nil,
                                       actionName: index % 5 == 4 ? "Paste" : "Typing", operations: operations))
        }
        return Segment(sequence: 9, timestamp: Date(timeIntervalSince1970: 1_000), groups: groups)
    }

    @Test(arguments: [1, 2, 5] as [Int])
    func typingRoundTripsAsInVersion4AndTakesLessRoom(peerCount: Int) throws {
        let model = try SegmentV5GoldenFiles.makeModel()
        var rng = SeededGenerator(seed: UInt64(peerCount) * 7_919)
        let peers = (0..<peerCount).map { UInt64($0) * 0x1234_5678_9ABC + 0xFEED_0000_0000_0001 }
        let (edits, _) = Self.typing(2_000, peers: peers, using: &rng)
        let segment = Self.segment(edits, model: model, perGroup: 6)
        let v5 = try SegmentEncoder.encode(segment, model: model)
        let v4 = try SegmentEncoder.encode(segment, model: model, version: 4)
        #expect(v5[4] == 5 && v4[4] == 4)
        #expect(try SegmentDecoder.decode(v5, model: model, storeTag: Self.storeTag, sequenceHint: 9) == segment)
        #expect(try SegmentDecoder.decode(v4, model: model, storeTag: Self.storeTag, sequenceHint: 9) == segment)
        // One peer typing (a context's segment) takes less than half; peers taking turns at
        // every keystroke, at random places, less.
        let (packed, unpacked) = (LZ4Frame.compress(v5).count, LZ4Frame.compress(v4).count)
        #expect(packed * (peerCount == 1 ? 2 : 1) < unpacked, "v5 \(packed) B, v4 \(unpacked) B")
        // The streaming encoder (a save's) writes the same body.
        let (frame, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model)
        let streamed = try LZ4Frame.decompress(frame, maxContentSize: 1 << 24)
        #expect(rawSize == v5.count && streamed == v5)
    }

    /// A save of typing is stored at LZ4's high level (docs/FORMAT.md §9.1, §19.11), which
    /// finds the repeats the fast level leaves: its frame is smaller, and reads back the same.
    @Test func aTypedSegmentIsStoredAtTheHighLevel() throws {
        let model = try SegmentV5GoldenFiles.makeModel()
        var rng = SeededGenerator(seed: 1_000)
        let (edits, _) = Self.typing(1_000, peers: [0xFEED_0000_0000_0001], using: &rng)
        let segment = Self.segment(edits, model: model, perGroup: 6).foldingTextEdits()
        let raw = try SegmentEncoder.encode(segment, model: model)
        let (frame, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model)
        #expect(rawSize == raw.count)
        #expect(frame == LZ4Frame.compress(raw, level: .high))
        let fast = LZ4Frame.compress(raw)
        #expect(frame.count < fast.count, "high \(frame.count) B, fast \(fast.count) B")
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 1 << 24) == raw)
        #expect(try SegmentCodec.decodeCompressed(frame, model: model, storeTag: Self.storeTag, sequenceHint: 9) == segment)
    }

    @Test func foldingAGroupsKeystrokesKeepsTheTextTheyMake() throws {
        let model = try SegmentV5GoldenFiles.makeModel()
        var rng = SeededGenerator(seed: 42)
        let (edits, base) = Self.typing(3_000, peers: [77], using: &rng)
        let segment = Self.segment(edits, model: model, perGroup: 8)
        let folded = segment.foldingTextEdits()
        #expect(folded.operationCount < segment.operationCount / 4, "\(folded.operationCount) of \(segment.operationCount)")
        func replayed(_ segment: Segment) throws -> (String, [TextElementID]) {
            var text = TextSequence(base: base)
            for group in segment.groups {
                for case .splice(_, _, let edit) in group.operations { _ = try text.apply(edit, peer: 77, resolvingRestores: false) }
            }
            return (text.string, text.shownIdentities())
        }
        let (unfoldedText, unfoldedIDs) = try replayed(segment)
        let (foldedText, foldedIDs) = try replayed(folded)
        #expect(foldedText == unfoldedText && foldedIDs == unfoldedIDs)
        // Each group's undo (its splices' inverses, newest first) deletes what it typed and
        // shows again what it deleted, folded or not.
        var text = TextSequence(base: base)
        for group in folded.groups {
            for case .splice(_, _, let edit) in group.operations { _ = try text.apply(edit, peer: 77, resolvingRestores: false) }
        }
        for group in folded.groups.reversed() {
            for case .splice(_, _, let edit) in group.operations.reversed() { _ = try text.apply(edit.inverse, peer: 78) }
        }
        #expect(text.string == base)
        // Backspace held down: one peer's identities deleted from the last back, one step.
        var backspaces = TextEdit()
        for counter in stride(from: 9, through: 5, by: -1) {
            backspaces.appendFolding(.delete(start: TextElementID(peer: 5, counter: UInt32(counter)), scalars: [Unicode.Scalar(UInt8(96 + counter))]))
        }
        #expect(backspaces.steps == [.delete(start: TextElementID(peer: 5, counter: 5), scalars: Array("efghi".unicodeScalars))])
    }

    // MARK: Malformed bodies

    /// A hand-made v5 body of sequence 9 over the golden model: the header, the peer table,
    /// the text and the step lengths; the groups are written after. It records where each
    /// peer and each length is.
    struct Body {
        var out = ByteWriter()
        var peerOffsets: [Int] = []
        var lengthOffsets: [Int] = []
        var lengthsEnd = 0
        init(peers: [UInt64] = [7], text: String = "a", lengths: [UInt64] = [1], groups: Int = 1, version: UInt64 = 5) {
            out.writeRaw(SegmentFormat.magic)
            out.writeVarint(version)
            out.writeVarint(9)
            out.writeZigzag(0)
            out.writeByte(0)
            out.writeByte(0)
            out.writeVarint(UInt64(groups))
            guard version >= 5 else { return }
            out.writeVarint(UInt64(peers.count))
            for peer in peers {
                peerOffsets.append(out.count)
                out.writeVarint(peer)
            }
            out.writeString(text)
            var block = ByteWriter()
            var positions: [Int] = []
            for length in lengths {
                positions.append(block.count)
                block.writeVarint(length)
            }
            out.writeVarint(UInt64(block.count))
            lengthOffsets = positions.map { $0 + out.count }
            out.writeRaw(block.bytes)
            lengthsEnd = out.count
        }
        /// A group (id 1, user, "Typing") of `operations` operations.
        mutating func group(operations: Int = 1, header: UInt8 = 0) {
            out.writeZigzag(0)
            out.writeByte(header)
            out.writeString("Typing")
            out.writeVarint(UInt64(operations))
        }
        /// A group of one splice of the note's title (tag 06), up to its step count.
        mutating func splice(steps: Int = 1) {
            group()
            out.writeByte(0x06)
            out.writeVarint(0)
            out.writeZigzag(1)
            out.writeVarint(0)
            out.writeVarint(UInt64(steps))
        }
        var offset: Int { out.count }
    }

    @Test func malformedPackedBodiesAreRefusedWithTheSegmentAndByte() throws {
        let model = try SegmentV5GoldenFiles.makeModel()
        func refuse(_ body: Body, at offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
            expectCorruptSegment(body.out.bytes, model: model, offset: offset, reason: reason, sourceLocation: sourceLocation)
        }
        let insertion = PackedTextStep.insertion
        // A peer table out of order.
        var body = Body(peers: [5, 3], text: "", lengths: [])
        refuse(body, at: body.peerOffsets[1], "the peer table is not in ascending order")

        // An insertion that continues nothing.
        body = Body()
        body.splice()
        var offset = body.offset
        body.out.writeByte(PackedTextStep.continues)
        refuse(body, at: offset, "continues no earlier insertion")

        // A peer index outside the table (two peers: indexes are written).
        body = Body(peers: [7, 8])
        body.splice()
        body.out.writeByte(insertion)
        offset = body.offset
        body.out.writeVarint(2)
        refuse(body, at: offset, "peer index 2 is outside the segment's 2 peers")

        // A counter past 2^32 − 1, written and as a difference.
        body = Body()
        body.splice()
        body.out.writeByte(insertion)
        offset = body.offset
        body.out.writeVarint(UInt64(UInt32.max) + 1)
        refuse(body, at: offset, "past 2^32")
        body = Body()
        body.splice()
        body.out.writeByte(insertion | PackedTextStep.OriginLeft.written.rawValue << PackedTextStep.leftShift)
        body.out.writeVarint(3)
        offset = body.offset
        body.out.writeZigzag(-4)
        refuse(body, at: offset, "outside 0 ... 2^32 − 1")

        // A right origin repeated from no earlier insertion; one after a left origin it lacks.
        for (mode, reason) in [(PackedTextStep.OriginRight.sameAsPrevious, "repeats a right origin"), (.afterLeft, "follows a left origin it does not have")] {
            body = Body()
            body.splice()
            offset = body.offset
            body.out.writeByte(insertion | mode.rawValue << PackedTextStep.rightShift)
            body.out.writeVarint(0)
            refuse(body, at: offset, reason)
        }

        // Unknown header bits: a step's, a deletion's (and both of its back flags), a group's.
        for header: UInt8 in [0x80, 0x03, 0x01 | 0x10, 0x01 | 0x04 | 0x08] {
            body = Body()
            body.splice()
            offset = body.offset
            body.out.writeByte(header)
            body.out.writeByte(0)
            refuse(body, at: offset, "unknown text step header")
        }
        body = Body()
        body.out.writeZigzag(0)
        offset = body.offset
        body.out.writeByte(0x20)
        body.out.writeByte(0)
        refuse(body, at: offset, "unknown group header 0x20")

        // A length past the text, a deletion referring outside what came before, one taking
        // back more than was typed, text or lengths no step took, lengths that end too soon.
        body = Body(text: "ab", lengths: [3])
        body.splice()
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        refuse(body, at: body.lengthOffsets[0], "a text step of 3 characters where the segment's text has 2")
        body = Body(text: "ab", lengths: [2, 1])
        body.splice(steps: 2)
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        body.out.writeByte(PackedTextStep.deletion | PackedTextStep.backReference)
        body.out.writeZigzag(-1)
        offset = body.offset
        body.out.writeVarint(3)
        refuse(body, at: offset, "refers 3 scalars back, outside the 2 before it")
        body = Body(text: "ab", lengths: [1, 2])
        body.splice(steps: 2)
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        body.out.writeByte(PackedTextStep.deletion | PackedTextStep.takesBack)
        refuse(body, at: body.lengthOffsets[1], "takes back 2 characters, more than were inserted before it")
        body = Body(text: "ab", lengths: [1])
        body.splice()
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        refuse(body, at: body.offset, "the segment's text holds 2 scalars but its steps take 1")
        body = Body(text: "a", lengths: [1, 1])
        body.splice()
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        refuse(body, at: body.lengthOffsets[1], "step lengths go on after its last step")
        body = Body(text: "a", lengths: [])
        body.splice()
        body.out.writeByte(insertion)
        body.out.writeVarint(0)
        refuse(body, at: body.lengthsEnd, "step lengths end before its steps do")

        // A splice that repeats the target of none; tag 07 in a version 4 body.
        body = Body()
        body.group()
        offset = body.offset
        body.out.writeByte(SegmentFormat.OperationTag.spliceAgain.rawValue)
        refuse(body, at: offset, "repeats the target of no earlier splice")
        body = Body(version: 4)
        body.out.writeVarint(1)
        body.out.writeByte(0)
        body.out.writeByte(0)
        body.out.writeString("")
        body.out.writeVarint(1)
        offset = body.offset
        body.out.writeByte(SegmentFormat.OperationTag.spliceAgain.rawValue)
        refuse(body, at: offset, "unknown operation tag 0x07")
    }

    @Test(arguments: [SegmentFuzzing.runSeed(), 1, 0xDEAD_BEEF])
    func mutatedPackedBodiesDecodeOrThrowButNeverCrash(seed: UInt64) throws {
        print("SegmentV5 fuzzing seed: \(seed) (replay with STRATA_FUZZ_SEED=\(seed))")
        let model = try SegmentV5GoldenFiles.makeModel()
        var rng = SeededGenerator(seed: seed)
        let (edits, _) = Self.typing(60, peers: [3, 0xFFFF_FFFF_FFFF], using: &rng)
        let bases = [try SegmentFixture.readGolden(SegmentV5GoldenFiles.bodyFile),
                     try SegmentEncoder.encode(Self.segment(edits, model: model, perGroup: 4), model: model)]
        var rejected = 0
        for iteration in 0..<SegmentFuzzing.iterationsPerSeed {
            let mutant = SegmentFuzzing.mutate(bases[iteration % bases.count], using: &rng)
            do {
                let segment = try SegmentDecoder.decode(mutant, model: model, storeTag: Self.storeTag, sequenceHint: nil)
                // What decodes encodes and decodes again to itself.
                let again = try SegmentEncoder.encode(segment, model: model)
                #expect(try SegmentDecoder.decode(again, model: model, storeTag: Self.storeTag, sequenceHint: nil) == segment)
            } catch let error as StrataError {
                #expect(error.code == .corruptSegment || error.code == .invalidArgument, "seed \(seed) iteration \(iteration): \(error)")
                rejected += 1
            }
        }
        #expect(rejected > SegmentFuzzing.iterationsPerSeed / 2)
    }
}
