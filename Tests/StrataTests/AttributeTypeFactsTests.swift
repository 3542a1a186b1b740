import Foundation
import Testing
@testable import Strata

/// The per-type facts in `AttributeType.swift`, which every store, codec and tool reads
/// instead of switching on the type (docs/ARCHITECTURE.md, "Adding an attribute type").
@Suite struct AttributeTypeFactsTests {
    /// A value of each type, as a model default would hold it.
    static let samples: [AttributeType: PropertyValue] = [
        .integer16: .integer(7), .integer32: .integer(7), .integer64: .integer(7), .decimal: .decimal(Decimal(string: "1.5")!),
        .double: .double(1.5), .float: .double(1.5), .string: .string("a"), .boolean: .boolean(true),
        .date: .date(Date(timeIntervalSinceReferenceDate: 0)), .binaryData: .data(Data([1])), .transformable: .data(Data([1])),
        .uuid: .uuid(UUID()), .uri: .uri(URL(string: "https://example.com")!),
    ]

    @Test func everyTypeHoldsValuesOfItsKind() {
        for type in AttributeType.allCases {
            let sample = Self.samples[type]!
            #expect(ModelValueRules.coerce(sample, to: type) == sample, "\(type)")
            #expect(sample.valueKind == type.valueKind, "\(type)")
        }
        // Values of another kind are refused, not converted.
        #expect(ModelValueRules.coerce(.data(Data([1])), to: .string) == nil)
        #expect(ModelValueRules.coerce(.string("1"), to: .integer64) == nil)
        #expect(ModelValueRules.coerce(.date(Date()), to: .transformable) == nil)
        #expect(ModelValueRules.coerce(.integer(2), to: .boolean) == nil)
        #expect(ModelValueRules.coerce(.uuid(UUID()), to: .uri) == nil)
    }

    @Test func integerRangesAreTheSwiftTypes() throws {
        #expect(AttributeType.integer16.integerRange == Int64(Int16.min)...Int64(Int16.max))
        #expect(AttributeType.integer32.integerRange == Int64(Int32.min)...Int64(Int32.max))
        #expect(AttributeType.integer64.integerRange == Int64.min...Int64.max)
        #expect(ModelValueRules.coerce(.integer(Int64(Int16.max) + 1), to: .integer16) == nil)
        #expect(ModelValueRules.coerce(.integer(Int64(Int32.min) - 1), to: .integer32) == nil)
        #expect(ModelValueRules.coerce(.integer(Int64(Int32.min)), to: .integer32) == .integer(Int64(Int32.min)))
        #expect(AttributeType.allCases.filter { $0.integerRange != nil } == [.integer16, .integer32, .integer64])
    }

    @Test func aFloatRoundsToSinglePrecision() {
        let third = 1.0 / 3.0
        #expect(ModelValueRules.coerce(.double(third), to: .float) == .double(Double(Float(third))))
        #expect(ModelValueRules.coerce(.double(third), to: .double) == .double(third))
        #expect(ModelValueRules.coerce(.integer(16_777_217), to: .float) == .double(16_777_216))
        #expect(AttributeType.allCases.filter(\.isSinglePrecision) == [.float])
    }

    @Test func xcodeNamesAreUniqueAndReadBack() {
        let names = AttributeType.allCases.map(\.xcodeName)
        #expect(Set(names).count == names.count)
        for type in AttributeType.allCases { #expect(XcodeModelReader.attributeTypes[type.xcodeName] == type) }
        #expect(XcodeModelReader.attributeTypes["Binary"] == .binaryData)
        #expect(XcodeModelReader.attributeTypes["Integer 16"] == .integer16)
    }

    /// Every pair of types, against the list docs/MIGRATION.md gives of lossless changes.
    @Test func wideningIsExactlyTheLosslessChanges() {
        let lossless: Set<[AttributeType]> = [
            [.integer16, .integer16], [.integer16, .integer32], [.integer16, .integer64], [.integer32, .integer32],
            [.integer32, .integer64], [.integer64, .integer64],
            [.integer16, .double], [.integer32, .double], [.float, .double],
            [.integer16, .decimal], [.integer32, .decimal], [.integer64, .decimal],
            [.binaryData, .transformable], [.transformable, .binaryData],
        ]
        for old in AttributeType.allCases {
            for new in AttributeType.allCases {
                #expect(MigrationPlan.widens(old, to: new) == lossless.contains([old, new]), "\(old) → \(new)")
            }
        }
    }

    @Test func sqlColumnTypesFollowTheKind() {
        #expect(SnapshotSchema.sqlType(.integer16) == "INTEGER")
        #expect(SnapshotSchema.sqlType(.boolean) == "INTEGER")
        #expect(SnapshotSchema.sqlType(.float) == "REAL")
        #expect(SnapshotSchema.sqlType(.date) == "REAL")
        #expect(SnapshotSchema.sqlType(.decimal) == "TEXT")
        #expect(SnapshotSchema.sqlType(.uri) == "TEXT")
        #expect(SnapshotSchema.sqlType(.transformable) == "BLOB")
    }
}
