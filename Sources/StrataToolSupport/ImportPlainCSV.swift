import Foundation
import Strata

/// The plain case of a CSV import: a header of attribute names only (no `_entity`, no
/// `_uri`, no relationship), so each cell goes straight from the file's bytes into its
/// slot. Strings are made only for text cells; integers and booleans in their usual
/// spellings are read from the bytes; anything else takes ``ToolValueText/parse(_:as:key:)``,
/// so every value, and every error, is the one the general path (``ImportRowReader/next()``,
/// ``ImportValues``) gives.
struct ImportPlainCSV {
    /// How a column converts.
    private enum Conversion {
        case text
        case integer(ClosedRange<Int64>)
        case boolean
        case date
        case parsed
    }

    /// Where one column goes.
    private struct Column {
        let key: String
        let slot: Int
        let type: AttributeType
        let conversion: Conversion
    }

    private let columns: [Column]

    /// The columns of `header` as slots of `entity`, or nil when the file is not the plain
    /// case (a column that is not a stored attribute of the entity: the general path
    /// handles it, with its errors).
    init?(header: [String], entity: EntityDescription) {
        var columns: [Column] = []
        columns.reserveCapacity(header.count)
        for key in header {
            guard let attribute = entity.attributesByName[key], !attribute.isTransient,
                  entity.relationshipsByName[key] == nil, let slot = entity.slot(forKey: key) else { return nil }
            let type = attribute.attributeType
            let conversion: Conversion
            switch type.valueKind {
            case .string: conversion = .text
            case .integer: conversion = .integer(type.integerRange ?? Int64.min...Int64.max)
            case .boolean: conversion = .boolean
            case .date: conversion = .date
            default: conversion = .parsed
            }
            columns.append(Column(key: key, slot: slot, type: type, conversion: conversion))
        }
        self.columns = columns
    }

    /// Fills `row`'s slots from the CSV row `reader` read last.
    /// - Throws: the value parser's errors for a cell its attribute cannot hold, and the
    ///   reader's for one that is not UTF-8.
    /// (`reader` is `inout` only to be read where it lies: a copy retains its every buffer.)
    func fill(_ row: inout StoreBatchInsert.Row, from reader: inout ImportRowReader) throws {
        for (index, column) in columns.enumerated() {
            row.values[column.slot] = try value(index, column, &reader)
        }
    }

    private func value(_ index: Int, _ column: Column, _ reader: inout ImportRowReader) throws -> PropertyValue {
        // What the bytes settle without a string: an empty cell, "null", and the usual
        // spellings of integers, booleans and dates.
        let quick = reader.withCSVFieldBytes(index) { bytes -> PropertyValue? in
            if bytes.isEmpty || Self.equals(bytes, "null") { return .null }
            switch column.conversion {
            case .integer(let range):
                guard let value = Self.integer(bytes), range.contains(value) else { return nil }
                return .integer(value)
            case .boolean:
                if Self.equals(bytes, "true") { return .boolean(true) }
                if Self.equals(bytes, "false") { return .boolean(false) }
                return nil
            case .date:
                // The general parser tries this form first, then spellings it completes.
                return ModelDateText.date(fromUTF8: bytes).map { .date($0) }
            case .text, .parsed:
                return nil
            }
        }
        if let quick = quick.flatMap({ $0 }) { return quick }
        let text = try reader.csvField(index)
        if case .text = column.conversion { return .string(text) }
        return try ToolValueText.parse(text, as: column.type, key: column.key)
    }

    /// Whether `bytes` are the ASCII text `literal`.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        return bytes.elementsEqual(expected)
    }

    /// An optional `-` and 1 to 18 digits (no overflow possible); nil for any other
    /// spelling, which the general parser reads or refuses.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var position = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { position = 1 }
        let digits = bytes.count - position
        guard digits >= 1, digits <= 18 else { return nil }
        var value: Int64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            position += 1
        }
        return negative ? -value : value
    }
}
