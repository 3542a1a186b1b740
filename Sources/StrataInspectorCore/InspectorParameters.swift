import Strata

/// A request's query parameters, read with the checks every endpoint shares: numbers in
/// range, a page size under the cap, a save that exists. Each failure is a 400 naming the
/// parameter and what it accepts.
package struct InspectorParameters: Sendable {
    /// The raw parameters, last value of a repeated name winning.
    package var values: [String: String]

    /// The most rows or saves one page may ask for; more is a 400, so no request makes the
    /// server read a whole table or the whole log at once.
    package static let maximumPageSize = 500
    /// The page size when none is asked.
    package static let defaultPageSize = 50
    /// The longest parameter value taken (a predicate included): 64 KiB.
    package static let maximumValueLength = 65_536

    /// Parameters from decoded name/value pairs.
    package init(_ values: [String: String]) {
        self.values = values
    }

    /// A text parameter, nil when absent or empty.
    package func text(_ name: String) throws -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        guard value.utf8.count <= Self.maximumValueLength else {
            throw InspectorError.badRequest("The parameter \(name) is \(value.utf8.count) bytes long; at most \(Self.maximumValueLength) are taken.")
        }
        return value
    }

    /// A required text parameter.
    package func required(_ name: String) throws -> String {
        guard let value = try text(name) else { throw InspectorError.badRequest("The parameter \(name) is missing.") }
        return value
    }

    /// A whole number in `range`, or `defaultValue` when absent.
    package func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) throws -> Int {
        guard let text = try text(name) else { return defaultValue }
        guard let value = Int(text) else {
            throw InspectorError.badRequest("The parameter \(name) takes a whole number; got \(Self.quoted(text)).")
        }
        guard range.contains(value) else {
            throw InspectorError.badRequest("The parameter \(name) must be between \(range.lowerBound) and \(range.upperBound); got \(value).")
        }
        return value
    }

    /// A segment sequence (a save), nil when absent.
    package func sequence(_ name: String) throws -> UInt64? {
        guard let text = try text(name) else { return nil }
        guard let value = UInt64(text), value <= UInt64(Int64.max) else {
            throw InspectorError.badRequest("The parameter \(name) takes a save's sequence number, such as 12; got \(Self.quoted(text)).")
        }
        return value
    }

    /// The page window: `offset` (default 0) and `limit` (default 50, at most 500).
    package func page() throws -> (offset: Int, limit: Int) {
        let offset = try integer("offset", in: 0...Int(Int32.max), default: 0)
        let limit = try integer("limit", in: 1...Self.maximumPageSize, default: Self.defaultPageSize)
        return (offset, limit)
    }

    /// A value as echoed in a message: at most 60 characters, so a hostile parameter
    /// makes one short line.
    package static func quoted(_ text: String) -> String {
        let short = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "'" + short + "'"
    }
}
