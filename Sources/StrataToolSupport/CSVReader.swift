import Foundation
import Strata

/// An RFC 4180 CSV reader: quoted fields with doubled quotes, commas and line breaks.
/// It reads one record at a time from an ``ImportByteSource``, so memory holds one record,
/// not the file — and a record is bounded (``StrataLimits``' import limits), so a file with no line
/// break, or a quote never closed, fails at the limit instead of filling memory.
package struct CSVReader {
    private let source: ImportByteSource
    private let limits: StrataLimits
    private let replacesInvalidUTF8: Bool
    /// The line (from 1) the next record starts on, for errors.
    package private(set) var line = 1

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
    /// - Throws: `.invalidArgument` when the text ends inside a quoted field (naming the
    ///   line the field starts on); ``fieldProblem(_:field:line:limit:)`` errors for a
    ///   field that is not UTF-8 or passes a limit (`context.fieldIndex`, from 0, and
    ///   `context.reason`: ``ImportRowReader`` names the row and the column).
    package mutating func nextRecord() throws -> [String]? {
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var afterQuote = false
        var quoteLine = line
        var sawAnything = false
        // The bytes of the fields already ended, their separators included.
        var recordBytes = 0
        func checkSize() throws {
            if field.count > limits.maxImportFieldBytes {
                throw Self.fieldProblem("the field is longer than \(limits.maxImportFieldBytes) bytes", field: fields.count, line: startLine,
                                        limit: ("maxImportFieldBytes", limits.maxImportFieldBytes))
            }
            if recordBytes + field.count > limits.maxImportRecordBytes {
                throw Self.fieldProblem("the record is longer than \(limits.maxImportRecordBytes) bytes", field: fields.count, line: startLine,
                                        limit: ("maxImportRecordBytes", limits.maxImportRecordBytes))
            }
        }
        func endField() throws {
            if fields.count >= limits.maxImportRecordValues {
                throw Self.fieldProblem("the record has more than \(limits.maxImportRecordValues) fields", field: fields.count, line: startLine,
                                        limit: ("maxImportRecordValues", limits.maxImportRecordValues))
            }
            fields.append(try text(field, index: fields.count, line: startLine))
            recordBytes += field.count + 1
            field.removeAll(keepingCapacity: true)
        }
        while true {
            if !inQuotes {
                // The bytes up to the next comma, quote or line break in one step: read one
                // at a time, they were a tenth of an import's instructions.
                let before = field.count
                try source.appendPlainRun(to: &field, upTo: runLimit(recordBytes: recordBytes))
                if field.count != before {
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
                        field.append(byte)
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
                try checkSize()
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where field.isEmpty && !afterQuote:
                inQuotes = true
                quoteLine = line
            case UInt8(ascii: ","):
                try endField()
                afterQuote = false
            case UInt8(ascii: "\r"): continue
            case UInt8(ascii: "\n"):
                line += 1
                try endField()
                return fields
            default:
                field.append(byte)
                try checkSize()
            }
        }
        guard !inQuotes else {
            throw StrataError(.invalidArgument, "The CSV file ends inside a quoted field (opened on line \(quoteLine)).",
                              context: .init { $0.line = quoteLine })
        }
        guard sawAnything, !field.isEmpty || !fields.isEmpty else { return nil }
        try endField()
        return fields
    }

    /// The size a field may reach in one plain run: one byte past the field's or the
    /// record's limit, whichever is nearer, so that passing it is seen and no more is read.
    private func runLimit(recordBytes: Int) -> Int {
        let room = min(limits.maxImportFieldBytes, max(0, limits.maxImportRecordBytes - recordBytes))
        return room == .max ? .max : room + 1
    }

    /// A field's text: its bytes as UTF-8, which they must be unless the reader replaces
    /// what is not (as `String(decoding:)` does, with U+FFFD).
    private func text(_ bytes: [UInt8], index: Int, line: Int) throws -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if replacesInvalidUTF8 { return String(decoding: bytes, as: UTF8.self) }
        throw Self.fieldProblem("the field is not valid UTF-8; import with --replace-invalid-utf8 to store U+FFFD in its place",
                                field: index, line: line, limit: nil)
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
