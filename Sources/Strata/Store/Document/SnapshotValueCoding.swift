import Foundation

/// How attribute values are written to and read from snapshot columns.
///
/// Dates are seconds since 2001-01-01 (REAL), decimals exact text, UUIDs upper-case text,
/// booleans 0/1, transformable values their JSON bytes.
enum SnapshotValueCoding {
    static func encode(_ value: PropertyValue) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .double(let v): return v.isNaN ? .null : .real(v)
        case .decimal(let v): return .text(v.description)
        case .string(let v): return .text(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .data(let v): return .blob([UInt8](v))
        case .uuid(let v): return .text(v.uuidString)
        case .uri(let v): return .text(v.absoluteString)
        case .object(let id): return .integer(id.primaryKey)
        case .objects: return .null
        }
    }

    /// Reads a column as an attribute of `type`.
    /// - Throws: `.corruptDocument` naming the column when the stored value does not fit.
    static func decode(_ value: SQLiteValue, as type: AttributeType, column: String) throws -> PropertyValue {
        func bad() -> StrataError {
            StrataError(.corruptDocument, "Snapshot column '\(column)' holds \(value), not \(withArticle(type.rawValue)).",
                        context: .init { $0.columnName = column })
        }
        if case .null = value { return .null }
        switch (type.valueKind, value) {
        case (.integer, .integer(let v)): return .integer(v)
        case (.double, .real(let v)): return .double(v)
        case (.double, .integer(let v)): return .double(Double(v))
        case (.decimal, .text(let text)):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw bad() }
            return .decimal(decimal)
        case (.decimal, .integer(let v)): return .decimal(Decimal(v))
        case (.decimal, .real(let v)): return .decimal(Decimal(v))
        case (.string, .text(let v)): return .string(v)
        case (.boolean, .integer(let v)): return .boolean(v != 0)
        case (.date, .real(let v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case (.date, .integer(let v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case (.data, .blob(let bytes)): return .data(Data(bytes))
        case (.uuid, .text(let text)):
            guard let uuid = UUID(uuidString: text) else { throw bad() }
            return .uuid(uuid)
        case (.uri, .text(let text)):
            guard let url = URL(string: text) else { throw bad() }
            return .uri(url)
        default:
            throw bad()
        }
    }
}
