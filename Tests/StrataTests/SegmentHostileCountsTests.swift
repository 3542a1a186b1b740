import Foundation
import Testing
@testable import Strata

/// docs/LIMITS.md, "Segments": a tiny hostile body that declares enormous counts or
/// lengths fails at once with `.corruptSegment`. Every count is checked against the bytes
/// left before anything is reserved, so none of these can allocate (a reservation of
/// 2^62 elements would trap, failing the test run).
@Suite struct SegmentHostileCounts {
    let model: ManagedObjectModel
    init() throws { model = try SegmentFixture.makeModel() }

    static let huge: [UInt64] = [1 << 20, 1 << 31, 1 << 32, 1 << 62, UInt64.max]

    /// Header (sequence 9), one group (id 1, user, no reverts, empty name), then `rest`.
    func body(groups: UInt64 = 1, _ rest: (inout ByteWriter) -> Void) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeRaw(Array("STRS".utf8))
        writer.writeVarint(1)
        writer.writeVarint(9)
        writer.writeZigzag(0)
        writer.writeVarint(groups)
        rest(&writer)
        return writer.bytes
    }

    /// Both decode paths refuse it: the decoder, and the streaming replay into a row table.
    func expectRejected(_ bytes: [UInt8], offset: Int, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectCorruptSegment(bytes, model: model, offset: offset, reason: reason, sourceLocation: sourceLocation)
        let store = InMemoryStore(model: model)
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            try store.replay(storedSegment: LZ4Frame.compress(bytes), model: model, storeTag: SegmentFixture.storeTag,
                             sequenceHint: 9, maxContentSize: SegmentCodec.defaultMaxContentSize)
        }
        #expect(error?.code == .corruptSegment, sourceLocation: sourceLocation)
    }

    @Test func hugeCountsFailFastWhateverTheyCount() {
        for count in Self.huge {
            expectRejected(body(groups: count) { _ in }, offset: 7, "group count")
            expectRejected(body { $0.writeRaw([1, 0, 0, 0]); $0.writeVarint(count) }, offset: 12, "operation count")
            // insert: Department has 4 persistent slots, so any other count is wrong.
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x01, 0, 2]); $0.writeVarint(count) }, offset: 16, "Department")
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x03, 0, 2]); $0.writeVarint(count) }, offset: 16, "change count")
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x04, 0, 2, 3]); $0.writeVarint(count) }, offset: 17, "added count")
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x04, 0, 2, 3, 0]); $0.writeVarint(count) }, offset: 18, "removed count")
            // objects value in an update of Department.employees.
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x03, 0, 2, 1, 3, 0x0C]); $0.writeVarint(count) }, offset: 19, "object count")
        }
    }

    @Test func hugeStringAndBlobLengthsFailFast() {
        for length in Self.huge {
            expectRejected(body { $0.writeRaw([1, 0, 0]); $0.writeVarint(length) }, offset: 11, "runs past the end")
            // Department.name (slot 0) ← a string; Employee.photo (slot 9) ← data.
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x03, 0, 2, 1, 0, 0x04]); $0.writeVarint(length) },
                           offset: 19, "runs past the end")
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x03, 1, 2, 1, 9, 0x08]); $0.writeVarint(length) },
                           offset: 19, "runs past the end")
            // A decimal's significand is bytes too.
            expectRejected(body { $0.writeRaw([1, 0, 0, 0, 1, 0x03, 0, 2, 1, 1, 0x03, 0, 0]); $0.writeVarint(length) },
                           offset: 21, "bytes declared")
        }
    }

    @Test func aFrameDeclaringMoreThanTheConfiguredSizeIsRefusedBeforeDecompressing() throws {
        let body = [UInt8](repeating: 7, count: 5_000)
        let frame = LZ4Frame.compress(body)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 5_000) == body)
        let error = try #require(throws: StrataError.self) {
            try SegmentCodec.decodeCompressed(frame, model: model, storeTag: SegmentFixture.storeTag,
                                              sequenceHint: 4, maxContentSize: 4_999)
        }
        #expect(error.code == .corruptSegment)
        #expect(error.context.layer == .lz4Frame && error.context.segment == 4)
    }
}
