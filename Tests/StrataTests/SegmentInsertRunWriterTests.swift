import Foundation
import Testing
import OrderedCollections
import StrataTestSupport
@testable import Strata

/// The insert-run writer (one survey of the rows, then each column walked once) against a
/// writer of docs/FORMAT.md §13.2–§13.4 built here value by value, for runs over every
/// attribute type, nulls in every pattern, to-ones with and without the entity index, and
/// to-manys: the same bytes, and the same error as an insert written alone.
@Suite struct SegmentInsertRunWriterTests {
    let model: ManagedObjectModel
    init() throws { model = try SegmentV2Fixture.makeModel() }

    var person: EntityDescription { model.entitiesByName["Person"]! }

    /// Random Person rows: every attribute varied, each slot null at `nullChance` (a whole
    /// column at 1), mentors from the hierarchy (entity index written), mentees lists.
    func rows(_ count: Int, keys: [Int64], nullChance: Double, using rng: inout SeededGenerator) -> [ChangeOperation] {
        (0..<count).map { row -> ChangeOperation in
            let n = Int64.random(in: 0...80, using: &rng)   // fullPerson spells a byte and a UUID digit pair with it
            let mentor: PropertyValue = Bool.random(using: &rng)
                ? .object(SegmentV2Fixture.id(model, Bool.random(using: &rng) ? "Person" : "Manager", Int64.random(in: -5...500, using: &rng)))
                : .null
            let mentees = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                SegmentV2Fixture.id(model, Bool.random(using: &rng) ? "Person" : "Manager", Int64.random(in: 1...9, using: &rng))
            }
            var values = SegmentV2Fixture.fullPerson(model, n, extra: [
                "mentor": mentor, "mentees": .objects(OrderedSet(mentees)),
                "department": .object(SegmentV2Fixture.id(model, "Department", Int64(row) * Int64.random(in: 0...2, using: &rng))),
                "salary": .integer(Bool.random(using: &rng) ? Int64(row) * 1_000 : Int64.random(in: .min ... .max, using: &rng)),
            ])
            for slot in values.indices where Double.random(in: 0..<1, using: &rng) < nullChance {
                if case .objects = values[slot] { continue }
                values[slot] = .null
            }
            return .insert(SegmentV2Fixture.id(model, "Person", keys[row]), values: values)
        }
    }

    func segment(_ operations: [ChangeOperation]) -> Segment {
        Segment(sequence: 7, timestamp: Date(timeIntervalSince1970: 1_700_000_000.25), groups: [
            SegmentGroup(id: 3, kind: .batch, revertsGroup: nil, actionName: "Import", operations: operations),
        ])
    }

    @Test func runsOfEveryTypeAndNullPatternAreWrittenAsTheFormatSays() throws {
        var rng = SeededGenerator(seed: 36)
        for count in [2, 3, 8, 9, 17, 300] {
            for nullChance in [0, 0.3, 0.9, 1] {
                let sequential = (0..<count).map { Int64($0 + 1) }
                let scattered = (0..<count).map { _ in Int64.random(in: .min ... .max, using: &rng) }
                for keys in [sequential, scattered] {
                    let operations = rows(count, keys: keys, nullChance: nullChance, using: &rng)
                    let written = try SegmentEncoder.encode(segment(operations), model: model, version: 2)
                    let expected = expectedBody(operations)
                    #expect(written == expected, "\(count) rows, nulls at \(nullChance)")
                    if written != expected { return }
                }
            }
        }
    }

    @Test func aValueThatDoesNotFitFailsAsForAnInsertWrittenAlone() throws {
        var rng = SeededGenerator(seed: 37)
        let good = rows(4, keys: [1, 2, 3, 4], nullChance: 0.2, using: &rng)
        let slot = { (name: String) in person.slotNames.firstIndex(of: name)! }
        let wrong: [(String, PropertyValue)] = [
            ("age", .string("forty")), ("name", .integer(3)), ("hired", .double(1)), ("badge", .string("x")),
            ("mentor", .object(SegmentV2Fixture.id(model, "Department", 1))), ("mentor", .integer(1)),
            ("mentees", .objects([SegmentV2Fixture.id(model, "Department", 1)])), ("department", .objects([])),
        ]
        for (name, value) in wrong {
            var operations = good
            guard case .insert(let id, var values) = operations[2] else { preconditionFailure() }
            values[slot(name)] = value
            operations[2] = .insert(id, values: values)
            let alone = try errorMessage { _ = try SegmentEncoder.encode(segment(operations), model: model, version: 1) }
            let inRun = try errorMessage { _ = try SegmentEncoder.encode(segment(operations), model: model, version: 2) }
            #expect(alone != nil, "\(name): \(value)")
            #expect(inRun == alone, "\(name): \(value)")
        }
        // A row with one value too few.
        var short = good
        guard case .insert(let id, let values) = short[1] else { preconditionFailure() }
        short[1] = .insert(id, values: Array(values.dropLast()))
        let alone = try errorMessage { _ = try SegmentEncoder.encode(segment(short), model: model, version: 1) }
        #expect(alone != nil)
        #expect(try errorMessage { _ = try SegmentEncoder.encode(segment(short), model: model, version: 2) } == alone)
    }

    func errorMessage(_ body: () throws -> Void) throws -> String? {
        do {
            try body()
            return nil
        } catch let error as StrataError {
            return error.message
        }
    }

    // MARK: §13 written value by value

    /// A version 2 body holding the segment's one group, whose operations are one run.
    func expectedBody(_ operations: [ChangeOperation]) -> [UInt8] {
        var out = ByteWriter()
        out.writeRaw(Array("STRS".utf8))
        out.writeVarint(2)
        out.writeVarint(7)
        out.writeZigzag(1_700_000_000_250)
        out.writeVarint(1)
        out.writeVarint(3)
        out.writeByte(ChangeGroupKind.batch.rawValue)
        out.writeByte(0)
        out.writeString("Import")
        out.writeVarint(UInt64(operations.count))
        writeRun(operations, to: &out)
        return out.bytes
    }

    func writeRun(_ operations: [ChangeOperation], to out: inout ByteWriter) {
        let rows = operations.map { operation -> [PropertyValue] in
            guard case .insert(_, let values) = operation else { preconditionFailure() }
            return values
        }
        out.writeByte(0x05)
        out.writeVarint(UInt64(person.index))
        out.writeVarint(UInt64(rows.count))
        for (row, operation) in operations.enumerated() {
            let key = operation.objectID.primaryKey
            out.writeZigzag(row == 0 ? key : key &- operations[row - 1].objectID.primaryKey &- 1)
        }
        for slot in 0..<person.slotCount where person.slotNames[slot] != "draft" {
            writeColumn(rows.map { $0[slot] }, slot: slot, to: &out)
        }
    }

    /// A column: header (presence in bits 0–1, delta in bit 2), bitmap, then the values.
    func writeColumn(_ column: [PropertyValue], slot: Int, to out: inout ByteWriter) {
        let present = column.filter { $0 != .null }
        var header: UInt8 = present.count == column.count ? 0 : present.isEmpty ? 1 : 2
        // Integers and to-one keys: differences when they take fewer bytes.
        let numbers = present.compactMap { value -> Int64? in
            switch value {
            case .integer(let number): number
            case .object(let id): id.primaryKey
            default: nil
            }
        }
        func size(_ number: Int64) -> Int {
            var writer = ByteWriter()
            writer.writeZigzag(number)
            return writer.count
        }
        let plain = numbers.reduce(0) { $0 + size($1) }
        let delta = numbers.indices.reduce(0) { $0 + size(numbers[$1] &- ($1 == 0 ? 0 : numbers[$1 - 1])) }
        let useDelta = numbers.count > 1 && numbers.count == present.count && delta < plain
        if useDelta { header |= 0x04 }
        out.writeByte(header)
        if present.isEmpty { return }
        if header & 0x03 == 2 {
            for start in stride(from: 0, to: column.count, by: 8) {
                var byte: UInt8 = 0
                for row in start..<min(start + 8, column.count) where column[row] != .null { byte |= 1 << UInt8(row - start) }
                out.writeByte(byte)
            }
        }
        let writesEntity = person.slotNames[slot] == "mentor"
        for (index, value) in present.enumerated() {
            let previous = index == 0 || !useDelta ? 0 : numbers[index - 1]
            switch value {
            case .integer(let number): out.writeZigzag(number &- previous)
            case .double(let number): out.writeFixed64(number.bitPattern)
            case .date(let date): out.writeFixed64(date.timeIntervalSinceReferenceDate.bitPattern)
            case .decimal(let number): writeDecimal(number, to: &out)
            case .string(let text): out.writeString(text)
            case .boolean(let flag): out.writeByte(flag ? 1 : 0)
            case .data(let bytes): out.writeBytes(Array(bytes))
            case .uuid(let uuid): out.writeRaw(withUnsafeBytes(of: uuid.uuid) { Array($0) })
            case .uri(let url): out.writeString(url.absoluteString)
            case .object(let id):
                if writesEntity { out.writeVarint(UInt64(id.entity.index)) }
                out.writeZigzag(id.primaryKey &- previous)
            case .objects(let ids):
                out.writeVarint(UInt64(ids.count))
                for id in ids {
                    out.writeVarint(UInt64(id.entity.index))
                    out.writeZigzag(id.primaryKey)
                }
            case .null: preconditionFailure()
            }
        }
    }

    /// §6.1: sign, zigzag exponent, significand little-endian without trailing zero bytes.
    func writeDecimal(_ number: Decimal, to out: inout ByteWriter) {
        let significand = UInt128(number.significand.description)!
        out.writeByte(number.sign == .minus && significand != 0 ? SegmentFormat.DecimalSign.minus.rawValue
                      : SegmentFormat.DecimalSign.plus.rawValue)
        out.writeZigzag(Int64(number.exponent))
        var bytes: [UInt8] = []
        var rest = significand
        while rest != 0 {
            bytes.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
        out.writeBytes(bytes)
    }
}
