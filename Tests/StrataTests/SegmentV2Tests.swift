import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Format v2 insert runs (docs/FORMAT.md §13): what the encoder chooses, exact round trips
/// at the edges, and hand-built malformed runs rejected with their offset. Layout of the
/// prefix the malformed cases share (as in SegmentMalformedBodies, version 2):
///
///     0 "STRS"  4 version  5 sequence  6 timestamp  7 group count
///     8 group id  9 kind  10 reverts flag  11 name length  12 op count
///     13 op tag 05  14 entity index  15 row count  16 keys ... then the columns
@Suite struct SegmentV2Runs {
    let model: ManagedObjectModel
    init() throws { model = try SegmentFixture.makeModel() }

    func roundTrip(_ operations: [ChangeOperation], model: ManagedObjectModel? = nil) throws -> (Segment, [UInt8]) {
        let model = model ?? self.model
        let segment = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 1_000), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: operations),
        ])
        let body = try SegmentEncoder.encode(segment, model: model)
        let decoded = try SegmentDecoder.decode(body, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: 4)
        #expect(decoded == segment)
        return (decoded, body)
    }

    /// An Employee row with its transient slots empty (as they read back).
    func employee(_ key: Int64, nulls: Set<Int> = []) -> ChangeOperation {
        var values = SegmentFixture.employeeValues(model, key: key)
        values[SegmentFixture.draft] = .null
        values[SegmentFixture.recentDepartments] = .objects([])
        for slot in nulls { values[slot] = .null }
        return .insert(SegmentFixture.id(model, "Employee", key), values: values)
    }

    @Test func runsKeepTheOrderAndBreakAtEveryOtherOperation() throws {
        let dept = SegmentFixture.id(model, "Department", 1)
        let deptValues: [PropertyValue] = [.string("R"), .null, .null, .objects([SegmentFixture.id(model, "Employee", 2)])]
        let operations: [ChangeOperation] = [
            employee(1), employee(2), .insert(dept, values: deptValues), employee(3),
            .update(SegmentFixture.id(model, "Employee", 1), changes: [SlotChange(slot: 0, old: .integer(41), new: .integer(42))]),
            employee(4), employee(6), employee(5),
        ]
        let (_, body) = try roundTrip(operations)
        // The group header starts at 10 (the timestamp takes 3 bytes): id, kind, flag, name
        // length, op count 8, then a run of two Employees (05 01 02), keys 1 and 2 (02 00).
        let group = 10
        #expect(body[group + 4] == 8)
        #expect(Array(body[group + 5..<group + 10]) == [0x05, 0x01, 0x02, 0x02, 0x00])
    }

    @Test func nullsAcrossBitmapBytesAndWholeColumnsRoundTrip() throws {
        var rng = SeededGenerator(seed: 15)
        for rows in [2, 7, 8, 9, 16, 17, 100] {
            let operations = (0..<rows).map { row -> ChangeOperation in
                var nulls: Set<Int> = [SegmentFixture.photo]   // a whole column of nulls
                for slot in 0..<13 where Bool.random(using: &rng) { nulls.insert(slot) }
                if row % 3 == 0 { nulls.insert(SegmentFixture.department) }
                return employee(Int64(row * 3), nulls: nulls)
            }
            _ = try roundTrip(operations)
        }
    }

    @Test func extremeKeysAndIntegersRoundTripThroughWrappingDeltas() throws {
        let keys: [Int64] = [.min, .max, -1, 0, 1, .max - 1, .min + 1]
        let salaries: [Int64] = [.max - 2, .max - 1, .max, .min, .min + 1, .min + 2, .min + 3]
        let operations = zip(keys, salaries).map { key, salary -> ChangeOperation in
            guard case .insert(let id, var values) = employee(key) else { preconditionFailure() }
            values[SegmentFixture.salary] = .integer(salary)
            values[SegmentFixture.department] = .object(SegmentFixture.id(model, "Department", salary))
            return .insert(id, values: values)
        }
        _ = try roundTrip(operations)
    }

    @Test func aToOneIntoAHierarchyNamesTheEntityAndSubEntitiesFormTheirOwnRuns() throws {
        let model = try SegmentV2Fixture.makeModel()
        let person = { (key: Int64) in SegmentV2Fixture.id(model, "Person", key) }
        let manager = { (key: Int64) in SegmentV2Fixture.id(model, "Manager", key) }
        let operations: [ChangeOperation] = [
            .insert(person(1), values: SegmentV2Fixture.values(model, "Person", ["mentor": .object(manager(2))])),
            .insert(person(3), values: SegmentV2Fixture.values(model, "Person", ["mentor": .object(person(1))])),
            .insert(manager(2), values: SegmentV2Fixture.values(model, "Manager", ["mentor": .object(person(3))])),
            .insert(manager(4), values: SegmentV2Fixture.values(model, "Manager", ["reports": .integer(7)])),
        ]
        let (decoded, _) = try roundTrip(operations, model: model)
        #expect(decoded.groups[0].operations.map(\.objectID) == [person(1), person(3), manager(2), manager(4)])
    }

    @Test func bulkInsertsCostAFewBytesPerValue() throws {
        // W1-like rows: five attributes and a to-one.
        let rows = 1_000
        let operations = (0..<rows).map { row -> ChangeOperation in
            var values = [PropertyValue](repeating: .null, count: 16)
            values[SegmentFixture.age] = .integer(Int64(20 + row % 40))
            values[SegmentFixture.level] = .integer(Int64(row % 7))
            values[SegmentFixture.salary] = .integer(Int64(30_000 + row * 13 % 70_000))
            values[SegmentFixture.name] = .string("Employee \(row)")
            values[SegmentFixture.active] = .boolean(row % 2 == 0)
            values[SegmentFixture.department] = .object(SegmentFixture.id(model, "Department", Int64(1 + row % 10)))
            values[SegmentFixture.recentDepartments] = .objects([])
            return .insert(SegmentFixture.id(model, "Employee", Int64(row + 1)), values: values)
        }
        let (_, body) = try roundTrip(operations)
        let segment = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 1_000), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: operations),
        ])
        let v1 = try SegmentEncoder.encode(segment, model: model, version: 1)
        // v1 spends 2 bytes on each of the 14 persistent slots' slot number and tag alone.
        #expect(body.count * 2 < v1.count, "v2 \(body.count) bytes, v1 \(v1.count)")
        #expect(body.count < rows * 30, "v2 \(body.count) bytes for \(rows) rows")
    }

    @Test func aBigBodyIsCompressedAsItIsWrittenIntoTheFrameOfTheWholeBody() throws {
        // Enough rows for several streamed chunks (over a megabyte raw), with a second
        // group after the run and operations that are not runs between.
        let rows = 60_000
        var operations = (0..<rows).map { employee(Int64($0 + 1), nulls: $0 % 5 == 0 ? [SegmentFixture.name] : []) }
        operations.append(.update(SegmentFixture.id(model, "Employee", 1),
                                  changes: [SlotChange(slot: SegmentFixture.age, old: .integer(20), new: .integer(21))]))
        let segment = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 1_000), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "import", operations: operations),
            SegmentGroup(id: 2, kind: .user, revertsGroup: nil, actionName: "", operations: Array(operations.prefix(3_000))),
        ])
        let raw = try SegmentEncoder.encode(segment, model: model)
        #expect(raw.count > 2 * SegmentEncoder.streamChunk, "\(raw.count) raw bytes")
        let (frame, rawSize) = try SegmentEncoder.encodeCompressed(segment, model: model)
        #expect(rawSize == raw.count)
        #expect(try LZ4Frame.decompress(frame, maxContentSize: 64 << 20) == raw)
        #expect(try SegmentCodec.decodeCompressed(frame, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: 4)
            == SegmentDecoder.decode(raw, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: 4))
        // The header declares the size, as every frame written here does.
        var size: UInt64 = 0
        for index in (6..<14).reversed() { size = size << 8 | UInt64(frame[index]) }
        #expect(size == UInt64(raw.count))
        // A body under one chunk is not streamed: the one-shot frame, byte for byte.
        let small = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 1_000), groups: [
            SegmentGroup(id: 1, kind: .user, revertsGroup: nil, actionName: "", operations: Array(operations.prefix(500))),
        ])
        let smallFrame = try SegmentEncoder.encodeCompressed(small, model: model).frame
        #expect(smallFrame == LZ4Frame.compress(try SegmentEncoder.encode(small, model: model)))
    }

    // MARK: malformed runs

    func body(version: UInt64 = 2, operations: UInt64, _ bytes: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeRaw(Array("STRS".utf8))
        writer.writeVarint(version)
        writer.writeRaw([9])
        writer.writeZigzag(0)
        writer.writeVarint(1)
        writer.writeRaw([1, 0, 0, 0])
        writer.writeVarint(operations)
        writer.writeRaw(bytes)
        return writer.bytes
    }

    /// Two Departments, keys 1 and 2: names "a" and "b", no budgets, codes or employees.
    let departments: [UInt8] = [0x05, 0, 2, 0x02, 0x00, 0x00, 1, 0x61, 1, 0x62, 0x01, 0x01, 0x01]

    func expect(_ bytes: [UInt8], offset: Int, _ reason: String, model: ManagedObjectModel? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) {
        expectCorruptSegment(bytes, model: model ?? self.model, offset: offset, reason: reason, segment: "9",
                             sequenceHint: 9, sourceLocation: sourceLocation)
    }

    @Test func aHandBuiltRunDecodes() throws {
        let segment = try SegmentDecoder.decode(body(operations: 2, departments), model: model,
                                                storeTag: SegmentFixture.storeTag, sequenceHint: 9)
        #expect(segment.groups[0].operations == [
            .insert(SegmentFixture.id(model, "Department", 1), values: [.string("a"), .null, .null, .null]),
            .insert(SegmentFixture.id(model, "Department", 2), values: [.string("b"), .null, .null, .null]),
        ])
    }

    @Test func malformedRunsAreRejectedWithTheirOffset() throws {
        expect(body(operations: 1, departments), offset: 15, "an insert run of 2 rows where the group has 1 operations left")
        expect(body(operations: 1, [0x05, 0, 0]), offset: 15, "an insert run of no rows")
        expect(body(operations: 1, [0x05, 0, 0xFF, 0xFF, 0x03]), offset: 15, "row count 65535 is larger than")
        expect(body(operations: 1, [0x05, 9, 1]), offset: 14, "entity index 9 is out of range")
        var header = departments
        header[5] = 0x08
        expect(body(operations: 2, header), offset: 18, "unknown column header 0x08")
        header[5] = 0x03
        expect(body(operations: 2, header), offset: 18, "unknown column header 0x03")
        header[5] = 0x04
        expect(body(operations: 2, header), offset: 18, "delta coding on a string column")
        var bitmap = departments
        bitmap.replaceSubrange(5...5, with: [0x02, 0x05])
        expect(body(operations: 2, bitmap), offset: 19, "presence bits set past the last row")
        expect(body(operations: 2, Array(departments.dropLast())), offset: 25, "unexpected end of data")
        expect(body(operations: 2, departments + [0]), offset: 26, "1 trailing bytes")
        // A run in a version 1 body is an unknown operation.
        expect(body(version: 1, operations: 2, departments), offset: 13, "unknown operation tag 0x05")
        // One Employee: seven null columns, then `active` holding 2.
        let employee: [UInt8] = [0x05, 1, 1, 0x02] + [UInt8](repeating: 0x01, count: 7) + [0x00, 0x02]
        expect(body(operations: 1, employee), offset: 25, "boolean byte 2 is neither 0 nor 1")
        // A Person whose mentor (a to-one into Person's hierarchy, so entity and key) is a
        // Department.
        let v2Model = try SegmentV2Fixture.makeModel()
        let person: [UInt8] = [0x05, 1, 1, 0x02] + [UInt8](repeating: 0x01, count: 14) + [0x00, 0x00, 0x02]
        expect(body(operations: 1, person), offset: 32, "a Department object does not fit a to-one relationship to Person",
               model: v2Model)
    }
}
