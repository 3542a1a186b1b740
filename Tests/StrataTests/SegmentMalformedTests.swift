import Foundation
import Testing
@testable import Strata

/// Each malformed body is built by hand so the offset of the bad byte is known. Layout of
/// the prefix every case shares (docs/FORMAT.md §2–§4):
///
///     0 "STRS"  4 version  5 sequence  6 timestamp  7 group count
///     8 group id  9 kind  10 reverts flag  11 name length  12 op count
///     13 op tag  14 entity index  15 key  16 count or slot ...
///
/// Entity 0 is Department (slots name, budget, code, employees), entity 1 is Employee.
@Suite struct SegmentMalformedBodies {
    let model: ManagedObjectModel
    init() throws { model = try SegmentFixture.makeModel() }

    /// A body: header (sequence 9), `groups` as the group count, then `rest`.
    func body(version: UInt64 = 1, sequence: [UInt8] = [9], groups: UInt64 = 1,
              _ rest: (inout ByteWriter) -> Void = { _ in }) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeRaw(Array("STRS".utf8))
        writer.writeVarint(version)
        writer.writeRaw(sequence)
        writer.writeZigzag(0)
        writer.writeVarint(groups)
        rest(&writer)
        return writer.bytes
    }

    /// A body with one group (id 1, user, no reverts, empty name) holding `operations` ops.
    func oneGroup(operations: UInt64 = 1, _ ops: (inout ByteWriter) -> Void) -> [UInt8] {
        body { writer in
            writer.writeRaw([1, 0, 0, 0])
            writer.writeVarint(operations)
            ops(&writer)
        }
    }

    /// One update of Department 1 (or `entity`) with one change to `slot`, then `values`.
    func update(entity: UInt8 = 0, slot: UInt8, _ values: [UInt8]) -> [UInt8] {
        oneGroup { $0.writeRaw([0x03, entity, 0x02, 0x01, slot] + values) }
    }

    func expect(_ bytes: [UInt8], offset: Int, _ reason: String, segment: String = "9", hint: UInt64? = 9,
                sourceLocation: SourceLocation = #_sourceLocation) {
        expectCorruptSegment(bytes, model: model, offset: offset, reason: reason, segment: segment,
                             sequenceHint: hint, sourceLocation: sourceLocation)
    }

    @Test func theHeaderIsChecked() {
        var wrongMagic = body(groups: 0)
        wrongMagic[3] = UInt8(ascii: "X")
        expect(wrongMagic, offset: 0, "bad magic", segment: "?", hint: nil)
        expect(body(version: 7, groups: 0), offset: 4, "unsupported format version 7 (this build reads versions 1–6)")
        expect(Array("STRS".utf8), offset: 4, "unexpected end of data")
        expect([0x53, 0x54], offset: 0, "2 left")
        expect(body(sequence: [8], groups: 0), offset: 5, "the body says sequence 8, expected 9")
        expect(body(groups: 1_000_000), offset: 7, "group count 1000000 is larger than")
    }

    @Test func overlongAndNonCanonicalVarintsAreRejected() {
        expect(body(sequence: [UInt8](repeating: 0x80, count: 10) + [0x01]), offset: 5, "longer than 10 bytes")
        expect(body(sequence: [UInt8](repeating: 0xFF, count: 9) + [0x02]), offset: 5, "overflows 64 bits")
        expect(body(sequence: [0x89, 0x00]), offset: 5, "not in its shortest form")
        expect(Array("STRS".utf8) + [0x01, 0x89], offset: 5, "unexpected end of data inside a varint")
        // The largest value, 10 bytes, is accepted.
        let maxSequence = body(sequence: [UInt8](repeating: 0xFF, count: 9) + [0x01], groups: 0)
        #expect(throws: Never.self) {
            try SegmentDecoder.decode(maxSequence, model: model, storeTag: 0, sequenceHint: .max)
        }
    }

    @Test func groupHeadersAreChecked() {
        expect(body { $0.writeRaw([1, 9, 0, 0, 0]) }, offset: 9, "unknown group kind 9")
        expect(body { $0.writeRaw([1, 0, 2, 0, 0]) }, offset: 10, "unknown reverts flag 2")
        expect(body { $0.writeRaw([1, 0, 0, 50, 0x41, 0x42, 0x43]) }, offset: 11, "string of 50 bytes runs past the end")
        expect(body { $0.writeRaw([1, 0, 0, 2, 0xC3, 0x28, 0]) }, offset: 11, "not valid UTF-8")
        expect(body { $0.writeRaw([1, 0, 0, 0]); $0.writeVarint(500) }, offset: 12, "operation count 500 is larger than")
    }

    @Test func operationsAreChecked() {
        expect(oneGroup { $0.writeRaw([0x09, 0, 2, 0]) }, offset: 13, "unknown operation tag 0x09")
        expect(oneGroup { $0.writeRaw([0x03, 7, 2, 0]) }, offset: 14, "entity index 7 is out of range")
        expect(update(slot: 9, [0, 0]), offset: 17, "slot 9 is out of range for Department")
        expect(update(entity: 1, slot: 13, [0, 0]), offset: 17, "is transient")
        expect(oneGroup { $0.writeRaw([0x04, 0, 2, 0, 0, 0]) }, offset: 16, "is not a to-many relationship")
        expect(oneGroup { $0.writeRaw([0x04, 0, 2, 3, 1, 0, 2, 0]) }, offset: 18,
               "a Department object does not fit a relationship to Employee")
        expect(oneGroup { $0.writeRaw([0x03, 0, 2, 40, 0]) }, offset: 16, "change count 40 is larger than")
    }

    @Test func insertValuesAreChecked() {
        // Department has 4 persistent slots.
        expect(oneGroup { $0.writeRaw([0x01, 0, 2, 2, 0, 0, 1, 0]) }, offset: 16, "2 values for Department")
        expect(oneGroup { $0.writeRaw([0x01, 0, 2, 4, 1, 0, 0, 0, 2, 0, 3, 0]) }, offset: 19, "slot 0 of Department is out of order")
        expect(oneGroup { $0.writeRaw([0x01, 0, 2, 4, 0, 0, 0, 0, 2, 0, 3, 0]) }, offset: 19, "out of order")
        expect(oneGroup { $0.writeRaw([0x01, 0, 2, 4, 0, 0, 1, 0]) }, offset: 21, "unexpected end of data")
    }

    @Test func valuesAreChecked() {
        expect(update(slot: 0, [0x01, 0x02, 0x00]), offset: 18, "an integer value does not fit the string attribute")
        expect(update(slot: 0, [0x1F, 0x00]), offset: 18, "unknown value tag 0x1F")
        expect(update(slot: 0, [0x04, 0x05, 0x41]), offset: 19, "string of 5 bytes runs past the end")
        expect(update(slot: 2, [0x09, 1, 2, 3, 4, 5]), offset: 19, "16 bytes needed, 5 left")
        expect(update(slot: 3, [0x0C, 0xC0, 0x84, 0x3D]), offset: 19, "object count 1000000 is larger than")
        expect(update(slot: 3, [0x0C, 2, 1, 2, 1, 2, 0]), offset: 22, "appears twice")
        expect(update(slot: 3, [0x0C, 1, 0, 2, 0]), offset: 18, "a Department object does not fit a to-many relationship")
        expect(update(slot: 3, [0x0B, 1, 2, 0]), offset: 18, "an object value does not fit a to-many relationship")
        expect(update(entity: 1, slot: 14, [0x0B, 1, 2, 0]), offset: 18, "an Employee object does not fit a to-one relationship to Department")
        expect(update(entity: 1, slot: 9, [0x08, 0x90, 0x4E, 0]), offset: 19, "10000 bytes declared")
        expect(update(entity: 1, slot: 11, [0x0A, 0x00, 0]), offset: 19, "is not a URI")
    }

    @Test func decimalsAreChecked() {
        expect(update(slot: 1, [0x03, 3, 0, 0, 0]), offset: 19, "unknown decimal sign 3")
        expect(update(slot: 1, [0x03, 0, 0x80, 0x02, 0, 0]), offset: 20, "decimal exponent 128 is out of range")
        expect(update(slot: 1, [0x03, 0, 0, 17] + [UInt8](repeating: 1, count: 17) + [0]), offset: 21, "malformed decimal significand")
        expect(update(slot: 1, [0x03, 0, 0, 2, 5, 0, 0]), offset: 21, "malformed decimal significand")
        expect(update(slot: 1, [0x03, 1, 0, 0, 0]), offset: 19, "negative zero decimal")
    }

    @Test func trailingAndMissingBytesAreRejected() throws {
        expect(body(groups: 0) + [0x00], offset: 8, "1 trailing bytes")
        let valid = try SegmentEncoder.encode(SegmentFixture.goldenSegment(model), model: model)
        expectCorruptSegment(valid + [1, 2, 3], model: model, offset: valid.count, reason: "3 trailing bytes",
                             segment: "3", sequenceHint: 3)
        expectCorruptSegment(Array(valid.dropLast()), model: model, offset: valid.count - 1, reason: "unexpected end",
                             segment: "3", sequenceHint: nil)
    }
}
