import Foundation
import Strata

/// An RFC 4180 CSV reader: quoted fields with doubled quotes, commas and line breaks.
/// It reads one record at a time from an ``ImportByteSource``, so memory holds one record,
/// not the file.
package struct CSVReader {
    private let source: ImportByteSource
    /// The line (from 1) the next record starts on, for errors.
    package private(set) var line = 1

    /// A reader of the records in `source`.
    package init(_ source: ImportByteSource) {
        self.source = source
    }

    /// The next record, a list of fields, or nil after the last (a final line break ends
    /// the last record; it does not start an empty one). An empty line is one empty field.
    /// - Throws: `.invalidArgument` when the text ends inside a quoted field (naming the
    ///   line the field starts on).
    package mutating func nextRecord() throws -> [String]? {
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var afterQuote = false
        var quoteLine = line
        var sawAnything = false
        while true {
            if !inQuotes {
                // The bytes up to the next comma, quote or line break in one step: read one
                // at a time, they were a tenth of an import's instructions.
                let before = field.count
                try source.appendPlainRun(to: &field)
                if field.count != before { sawAnything = true }
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
                continue
            }
            switch byte {
            case UInt8(ascii: "\"") where field.isEmpty && !afterQuote:
                inQuotes = true
                quoteLine = line
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true); afterQuote = false
            case UInt8(ascii: "\r"): continue
            case UInt8(ascii: "\n"):
                line += 1
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            default:
                field.append(byte)
            }
        }
        guard !inQuotes else {
            throw StrataError(.invalidArgument, "The CSV file ends inside a quoted field (opened on line \(quoteLine)).",
                              context: ["line": String(quoteLine)])
        }
        guard sawAnything, !field.isEmpty || !fields.isEmpty else { return nil }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }
}
