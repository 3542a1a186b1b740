import Foundation
import Strata

/// An RFC 4180 CSV reader: quoted fields with doubled quotes, commas and line breaks.
/// It reads one record at a time from an ``ImportByteSource`` into a buffer it reuses, so
/// memory holds one record, not the file — and a record is bounded (``StrataLimits``' import
/// limits), so a file with no line break, or a quote never closed, fails at the limit
/// instead of filling memory.
///
/// A record's fields are bytes until asked for: ``fieldText(_:)`` checks one as UTF-8 and
/// makes it a `String`, ``withFieldBytes(_:_:)`` lends its bytes to a caller that converts
/// them itself (a number, a boolean), so a cell that is not text is never a `String`.
package struct CSVReader {
    private let source: ImportByteSource
    private let limits: StrataLimits
    private let replacesInvalidUTF8: Bool
    /// The line (from 1) the next record starts on, for errors.
    package private(set) var line = 1
    /// The line the record read last starts on.
    package private(set) var recordLine = 1
    /// The record read last: its fields' bytes back to back (quotes undone), and where
    /// each field ends in them.
    private var recordBytes: [UInt8] = []
    private var fieldEnds: [Int] = []

    /// A reader of the records in `source`.
    /// - Parameters:
    ///   - limits: the largest field and record and the most fields a record may have.
    ///   - replacesInvalidUTF8: store U+FFFD for bytes that are not UTF-8 instead of
    ///     failing (`strata import --replace-invalid-utf8`).
    package init(_ source: ImportByteSource, limits: StrataLimits = .current, replacesInvalidUTF8: Bool = false) {
        self.source = source
        self.limits = limits
        self.replacesInvalidUTF8 = replacesInvalidUTF8
    }

    /// The next record, a list of fields, or nil after the last (a final line break ends
    /// the last record; it does not start an empty one). An empty line is one empty field.
    /// - Throws: ``readRecord()``'s errors; ``fieldText(_:)``'s for a field that is not UTF-8.
    package mutating func nextRecord() throws -> [String]? {
        guard let count = try readRecord() else { return nil }
        return try (0..<count).map { try fieldText($0) }
    }

    /// Reads the next record into the reader's buffer (the one before is gone) and returns
    /// how many fields it has, or nil after the last record.
    /// - Throws: `.invalidArgument` when the text ends inside a quoted field (naming the
    ///   line the field starts on); ``fieldProblem(_:field:line:limit:)`` errors for a
    ///   field that passes a limit (`context.fieldIndex`, from 0, and `context.reason`:
    ///   ``ImportRowReader`` names the row and the column).
    package mutating func readRecord() throws -> Int? {
        recordLine = line
        recordBytes.removeAll(keepingCapacity: true)
        fieldEnds.removeAll(keepingCapacity: true)
        // Where the field being read starts in `recordBytes`.
        var fieldStart = 0
        var inQuotes = false
        var afterQuote = false
        var quoteLine = line
        var sawAnything = false
        func checkSize() throws {
            if recordBytes.count - fieldStart > limits.maxImportFieldBytes {
                throw Self.fieldProblem("the field is longer than \(limits.maxImportFieldBytes) bytes", field: fieldEnds.count, line: recordLine,
                                        limit: ("maxImportFieldBytes", limits.maxImportFieldBytes))
            }
            // The fields already ended count with their separators.
            if recordBytes.count + fieldEnds.count > limits.maxImportRecordBytes {
                throw Self.fieldProblem("the record is longer than \(limits.maxImportRecordBytes) bytes", field: fieldEnds.count, line: recordLine,
                                        limit: ("maxImportRecordBytes", limits.maxImportRecordBytes))
            }
        }
        func endField() throws {
            if fieldEnds.count >= limits.maxImportRecordValues {
                throw Self.fieldProblem("the record has more than \(limits.maxImportRecordValues) fields", field: fieldEnds.count, line: recordLine,
                                        limit: ("maxImportRecordValues", limits.maxImportRecordValues))
            }
            fieldEnds.append(recordBytes.count)
            fieldStart = recordBytes.count
        }
        while true {
            if !inQuotes {
                // The bytes up to the next comma, quote or line break in one step: read one
                // at a time, they were a tenth of an import's instructions.
                let before = recordBytes.count
                try source.appendPlainRun(to: &recordBytes, upTo: runLimit(fieldStart: fieldStart, endedFields: fieldEnds.count))
                if recordBytes.count != before {
                    sawAnything = true
                    try checkSize()
                }
            }
            guard let byte = try source.next() else { break }
            sawAnything = true
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if try source.peek() == UInt8(ascii: "\"") {
                        _ = try source.next()
                        recordBytes.append(byte)
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    recordBytes.append(byte)
                }
                try checkSize()
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where recordBytes.count == fieldStart && !afterQuote:
                inQuotes = true
                quoteLine = line
            case UInt8(ascii: ","):
                try endField()
                afterQuote = false
            case UInt8(ascii: "\r"): continue
            case UInt8(ascii: "\n"):
                line += 1
                try endField()
                return fieldEnds.count
            default:
                recordBytes.append(byte)
                try checkSize()
            }
        }
        guard !inQuotes else {
            throw StrataError(.invalidArgument, "The CSV file ends inside a quoted field (opened on line \(quoteLine)).",
                              context: .init { $0.line = quoteLine })
        }
        guard sawAnything, recordBytes.count != fieldStart || !fieldEnds.isEmpty else { return nil }
        try endField()
        return fieldEnds.count
    }

    /// How many bytes field `index` of the record read last has.
    package func fieldLength(_ index: Int) -> Int {
        fieldEnds[index] - (index == 0 ? 0 : fieldEnds[index - 1])
    }

    /// Lends the bytes of field `index` of the record read last to `body`.
    /// (`mutating` only so that the reader is read where it lies: a non-mutating call on a
    /// reader held in a variable copied it, a retain of each buffer, for every cell.)
    package mutating func withFieldBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let start = index == 0 ? 0 : fieldEnds[index - 1]
        let end = fieldEnds[index]
        return try recordBytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Field `index` of the record read last as text: its bytes as UTF-8, which they must
    /// be unless the reader replaces what is not (as `String(decoding:)` does, with U+FFFD).
    /// - Throws: ``fieldProblem(_:field:line:limit:)`` for bytes that are not UTF-8.
    /// (`mutating` as ``withFieldBytes(_:_:)``.)
    package mutating func fieldText(_ index: Int) throws -> String {
        let replacesInvalidUTF8 = replacesInvalidUTF8
        let text = withFieldBytes(index) { bytes -> String? in
            // ASCII (nearly every cell) is UTF-8 as it is: no validation to run.
            var union: UInt8 = 0
            for byte in bytes { union |= byte }
            if union < 0x80 || replacesInvalidUTF8 { return String(decoding: bytes, as: UTF8.self) }
            return String(validating: bytes, as: UTF8.self)
        }
        guard let text else {
            throw Self.fieldProblem("the field is not valid UTF-8; import with --replace-invalid-utf8 to store U+FFFD in its place",
                                    field: index, line: recordLine, limit: nil)
        }
        return text
    }

    /// The size `recordBytes` may reach in one plain run: one byte past the field's or
    /// the record's limit, whichever is nearer, so that passing it is seen and no more is read.
    private func runLimit(fieldStart: Int, endedFields: Int) -> Int {
        let room = min(limits.maxImportFieldBytes, max(0, limits.maxImportRecordBytes - fieldStart - endedFields))
        return room >= Int.max - fieldStart - 1 ? .max : fieldStart + room + 1
    }

    /// The error for field `field` (from 0) of the record starting on `line`: `reason` is
    /// what is wrong, `limit` the limit passed (its name in `STRATA_LIMITS` and value).
    static func fieldProblem(_ reason: String, field: Int, line: Int, limit: (name: String, value: Int)?) -> StrataError {
        var reason = reason
        if let limit { reason += " (limit \(limit.name)); raise it with STRATA_LIMITS=\(limit.name)=N" }
        return StrataError(.invalidArgument, "CSV line \(line), field \(field + 1): \(reason).",
                           context: .init { $0.line = line; $0.fieldIndex = field; $0.limit = limit?.name; $0.maximum = limit?.value; $0.reason = reason })
    }
}
