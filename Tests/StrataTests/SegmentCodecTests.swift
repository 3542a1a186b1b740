import Foundation
import OrderedCollections
import Testing
@testable import Strata

@Suite struct SegmentCodecRoundTrips {
    let model: ManagedObjectModel
    init() throws { model = try SegmentFixture.makeModel() }

    func roundTrip(_ segment: Segment) throws -> Segment {
        let body = try SegmentEncoder.encode(segment, model: model)
        return try SegmentDecoder.decode(body, model: model, storeTag: SegmentFixture.storeTag,
                                         sequenceHint: segment.sequence)
    }

    func segment(_ operations: [ChangeOperation], sequence: UInt64 = 1) -> Segment {
        Segment(sequence: sequence, timestamp: Date(timeIntervalSince1970: 1_000), groups: [
            SegmentGroup(id: 10, kind: .user, revertsGroup: nil, actionName: "", operations: operations),
        ])
    }

    /// Encodes `value` in `slot` of an Employee update and returns what decodes.
    func roundTripValue(_ value: PropertyValue, slot: Int) throws -> PropertyValue {
        let alice = SegmentFixture.id(model, "Employee", 1)
        let decoded = try roundTrip(segment([.update(alice, changes: [SlotChange(slot: slot, old: .null, new: value)])]))
        guard case .update(_, let changes) = decoded.groups[0].operations[0] else { return .null }
        #expect(changes[0].old == .null)
        return changes[0].new
    }

    @Test func everyValueTypeRoundTripsExactly() throws {
        let F = SegmentFixture.self
        let dept = F.id(model, "Department", 77)
        let cases: [(PropertyValue, Int)] = [
            (.integer(0), F.salary), (.integer(Int64.min), F.salary), (.integer(Int64.max), F.salary),
            (.integer(-1), F.age), (.integer(32_767), F.age), (.integer(Int64(Int32.min)), F.level),
            (.double(0), F.rating), (.double(-0.0), F.rating), (.double(.infinity), F.rating),
            (.double(-.infinity), F.rating), (.double(.leastNonzeroMagnitude), F.rating),
            (.double(.greatestFiniteMagnitude), F.rating), (.double(0.1), F.height),
            (.decimal(0), F.bonus), (.decimal(F.decimal("-123.4500")), F.bonus),
            (.decimal(F.decimal("340282366920938463463374607431768211455")), F.bonus),
            (.decimal(F.decimal("1e-128")), F.bonus), (.decimal(F.decimal("-3.4e127")), F.bonus),
            (.decimal(F.decimal("0.000000000000000000000000000000001")), F.bonus),
            (.string(""), F.name), (.string("a\u{0}b"), F.name), (.string("👩‍👩‍👧 e\u{301} ß"), F.name),
            (.string(String(repeating: "x", count: 70_000)), F.name),
            (.boolean(true), F.active), (.boolean(false), F.active),
            (.date(Date(timeIntervalSince1970: 0)), F.hired),
            (.date(Date(timeIntervalSince1970: 1_234_567_890.000_123_456)), F.hired),
            (.date(Date(timeIntervalSince1970: -62_135_596_800.5)), F.hired),
            (.date(.distantFuture), F.hired), (.date(Date(timeIntervalSinceReferenceDate: 0.1)), F.hired),
            (.data(Data()), F.photo), (.data(Data((0...255).map { UInt8($0) })), F.photo),
            (.data(Data([1, 2, 3])), F.settings),
            (.uuid(UUID()), F.badge), (.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), F.badge),
            (.uri(URL(string: "https://example.com/a?b=c#d")!), F.homepage),
            (.uri(URL(string: "x-strata://store/Employee/p1")!), F.homepage),
            (.uri(URL(fileURLWithPath: "/tmp/some file.txt")), F.homepage),
            (.object(dept), F.department), (.null, F.department), (.null, F.salary), (.null, F.bonus),
        ]
        for (value, slot) in cases {
            let decoded = try roundTripValue(value, slot: slot)
            #expect(decoded == value, "slot \(slot): \(value) came back as \(decoded)")
            if case .double(let a) = value, case .double(let b) = decoded {
                #expect(a.bitPattern == b.bitPattern, "double bits differ for \(a)")
            }
            if case .date(let a) = value, case .date(let b) = decoded {
                #expect(a.timeIntervalSince1970.bitPattern == b.timeIntervalSince1970.bitPattern)
            }
        }
    }

    @Test func aNaNDoubleKeepsItsBitsAndANaNDecimalStaysNaN() throws {
        let payload = Double(bitPattern: 0x7FF8_0000_0000_1234)
        guard case .double(let back) = try roundTripValue(.double(payload), slot: SegmentFixture.rating) else {
            Issue.record("not a double"); return
        }
        #expect(back.bitPattern == payload.bitPattern)
        guard case .decimal(let decimal) = try roundTripValue(.decimal(.nan), slot: SegmentFixture.bonus) else {
            Issue.record("not a decimal"); return
        }
        #expect(decimal.isNaN)
    }

    @Test func toManyValuesKeepTheirOrder() throws {
        let ids = OrderedSet([5, 1, 3, 2].map { SegmentFixture.id(model, "Employee", $0) })
        let dept = SegmentFixture.id(model, "Department", 1)
        let decoded = try roundTrip(segment([
            .update(dept, changes: [SlotChange(slot: SegmentFixture.employees, old: .objects([]), new: .objects(ids))]),
        ]))
        #expect(decoded.groups[0].operations == [
            .update(dept, changes: [SlotChange(slot: SegmentFixture.employees, old: .objects([]), new: .objects(ids))]),
        ])
    }

    @Test func everyOperationKindRoundTrips() throws {
        let F = SegmentFixture.self
        let dept = F.id(model, "Department", 2)
        let alice = F.id(model, "Employee", -5)
        let bob = F.id(model, "Employee", Int64.max)
        let persistent = F.persistentPart(of: .insert(alice, values: F.employeeValues(model)))!
        guard case .insert(_, let values) = persistent else { return }
        let operations: [ChangeOperation] = [
            .insert(alice, values: values),
            .delete(bob, values: values),
            .update(alice, changes: [SlotChange(slot: F.name, old: "a", new: "b"),
                                     SlotChange(slot: F.name, old: "b", new: "c")]),
            .relate(dept, slot: F.employees, added: [alice, bob], removed: [bob]),
            .relate(dept, slot: F.employees, added: [], removed: []),
        ]
        let original = Segment(sequence: UInt64.max, timestamp: Date(timeIntervalSince1970: -86_400.001), groups: [
            SegmentGroup(id: 0, kind: .user, revertsGroup: nil, actionName: "All", operations: operations),
            SegmentGroup(id: UInt64.max, kind: .redo, revertsGroup: UInt64.max, actionName: "Redo «All»", operations: []),
            SegmentGroup(id: 7, kind: .merge, revertsGroup: 0, actionName: "", operations: []),
        ])
        #expect(try roundTrip(original) == original)
        let empty = Segment(sequence: 0, timestamp: Date(timeIntervalSince1970: 0), groups: [])
        #expect(try roundTrip(empty) == empty)
    }

    @Test func everyGroupKindRoundTrips() throws {
        let groups = ChangeGroupKind.allCases.enumerated().map { index, kind in
            SegmentGroup(id: UInt64(index), kind: kind, revertsGroup: index.isMultiple(of: 2) ? nil : 1,
                         actionName: "\(kind)", operations: [])
        }
        let original = Segment(sequence: 4, timestamp: Date(timeIntervalSince1970: 5), groups: groups)
        #expect(try roundTrip(original) == original)
    }

    @Test func transientSlotsAreNotWritten() throws {
        let F = SegmentFixture.self
        let alice = F.id(model, "Employee", 1)
        let values = F.employeeValues(model)
        var changed = values
        changed[F.draft] = .string("something else entirely, much longer than before")
        changed[F.recentDepartments] = .objects([F.id(model, "Department", 9), F.id(model, "Department", 8)])
        // Transient values do not change a single byte of the body.
        #expect(try SegmentEncoder.encode(segment([.insert(alice, values: values)]), model: model)
                == SegmentEncoder.encode(segment([.insert(alice, values: changed)]), model: model))
        let decoded = try roundTrip(segment([
            .insert(alice, values: changed),
            .update(alice, changes: [SlotChange(slot: F.draft, old: "x", new: "y")]),
            .relate(alice, slot: F.recentDepartments, added: [F.id(model, "Department", 1)], removed: []),
            .update(alice, changes: []),
        ]))
        #expect(decoded.groups[0].operations == [F.persistentPart(of: .insert(alice, values: values))!])
    }

    @Test func aTemporaryObjectIDCannotBeEncoded() throws {
        let temporary = ManagedObjectID.temporary(for: model.entitiesByName["Department"]!)
        let permanent = SegmentFixture.id(model, "Employee", 1)
        for operation: ChangeOperation in [
            .relate(temporary, slot: SegmentFixture.employees, added: [], removed: []),
            .update(permanent, changes: [SlotChange(slot: SegmentFixture.department, old: .null, new: .object(temporary))]),
        ] {
            #expect {
                try SegmentEncoder.encode(segment([operation], sequence: 12), model: model)
            } throws: { error in
                let error = error as? StrataError
                return error?.code == .invalidObjectID && error?.context.segment == 12
                    && error?.message.contains("temporary") == true
            }
        }
    }

    @Test func theEncoderRefusesWhatTheDecoderWouldReject() throws {
        let F = SegmentFixture.self
        let alice = F.id(model, "Employee", 1)
        let dept = F.id(model, "Department", 1)
        let other = try SegmentFixture.makeModel()
        let bad: [(ChangeOperation, String)] = [
            (.update(alice, changes: [SlotChange(slot: 99, old: .null, new: .null)]), "slot 99 is out of range"),
            (.update(alice, changes: [SlotChange(slot: F.salary, old: .null, new: .string("x"))]), "does not fit the integer64 attribute"),
            (.update(alice, changes: [SlotChange(slot: F.department, old: .null, new: .object(alice))]), "does not fit a to-one"),
            (.insert(alice, values: [.null]), "holds 1 values"),
            (.relate(dept, slot: F.departmentName, added: [], removed: []), "is not a to-many"),
            (.relate(dept, slot: F.employees, added: [dept], removed: []), "does not fit a to-many"),
            (.update(F.id(other, "Employee", 1), changes: []), "not part of the segment's model"),
        ]
        for (operation, reason) in bad {
            #expect {
                try SegmentEncoder.encode(segment([operation]), model: model)
            } throws: { error in
                let error = error as? StrataError
                return error?.code == .invalidArgument && error?.message.contains(reason) == true
            }
        }
        let farFuture = Segment(sequence: 1, timestamp: Date(timeIntervalSince1970: 1e300), groups: [])
        #expect(throws: StrataError.self) { try SegmentEncoder.encode(farFuture, model: model) }
    }

    @Test func theTimestampKeepsMillisecondPrecision() throws {
        let original = Segment(sequence: 1, timestamp: Date(timeIntervalSince1970: 1_700_000_000.1234), groups: [])
        let decoded = try roundTrip(original)
        #expect(decoded.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
    }

    @Test func compressedBodiesRoundTripAndNameTheSegmentInFrameErrors() throws {
        let original = SegmentFixture.goldenSegment(model)
        var stored = try SegmentCodec.compressedBody(original, model: model)
        let decoded = try SegmentCodec.decodeCompressed(stored, model: model, storeTag: SegmentFixture.storeTag,
                                                        sequenceHint: 3)
        #expect(decoded == SegmentFixture.goldenDecoded(model))
        stored[stored.count - 2] ^= 0x40
        #expect {
            try SegmentCodec.decodeCompressed(stored, model: model, storeTag: SegmentFixture.storeTag, sequenceHint: 3)
        } throws: { error in
            let error = error as? StrataError
            return error?.code == .corruptSegment && error?.context.segment == 3
                && error?.context.layer == .lz4Frame && error?.message.contains("Segment 3") == true
        }
        #expect {
            try SegmentCodec.decodeCompressed(try SegmentCodec.compressedBody(original, model: model), model: model,
                                              storeTag: SegmentFixture.storeTag, sequenceHint: 3, maxContentSize: 64)
        } throws: { error in
            (error as? StrataError)?.message.contains("exceeds the limit of 64 bytes") == true
        }
    }
}
