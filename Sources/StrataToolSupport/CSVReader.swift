import Foundation
import Strata

/// An RFC 4180 CSV reader: quoted fields with doubled quotes, commas and line breaks.
package enum CSVReader {
    /// The records of CSV text, each a list of fields (a final line break ends the last
    /// record; it does not start an empty one).
    /// - Throws: `.invalidArgument` when the text ends inside a quoted field.
    package static func records(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var afterQuote = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending { pending = nil; return scalar }
            return iterator.next()
        }
        while let scalar = next() {
            if inQuotes {
                if scalar == "\"" {
                    if let following = iterator.next() {
                        if following == "\"" { field.unicodeScalars.append("\"") } else { inQuotes = false; afterQuote = true; pending = following }
                    } else { inQuotes = false; afterQuote = true }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !afterQuote: inQuotes = true
            case ",":
                fields.append(field); field = ""; afterQuote = false
            case "\r": continue
            case "\n":
                fields.append(field); records.append(fields); fields = []; field = ""; afterQuote = false
            default:
                field.unicodeScalars.append(scalar)
            }
        }
        guard !inQuotes else { throw StrataError(.invalidArgument, "The CSV file ends inside a quoted field.") }
        if !field.isEmpty || !fields.isEmpty { fields.append(field); records.append(fields) }
        return records
    }
}
