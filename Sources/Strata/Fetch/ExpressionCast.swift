import Foundation

/// `CAST(value, 'Type')` (``FetchFunction/castObject``) on values, with the conversions
/// the parser applies to literals (`CAST(700000000, 'NSDate')`), so a CAST gives the same
/// value whether it is folded while parsing or computed row by row.
package enum ExpressionCast {
    /// The type names CAST accepts, as errors list them.
    static let typeNames = ["NSNumber", "NSString", "NSDate", "NSDecimalNumber", "NSUUID", "NSURL", "NSData"]

    /// `value` converted to the type named by `type` (a string): NULL stays NULL.
    ///
    /// | To | From |
    /// |---|---|
    /// | `NSNumber` | numbers (booleans become 0 and 1); a date (its seconds since 2001-01-01 UTC); a string holding an integer or a decimal number |
    /// | `NSString` | strings; numbers (`"42"`, `"1.5"`); a date (`"2001-01-01 00:00:00 +0000"`, as `NSDate`'s description); a UUID; a URL |
    /// | `NSDate` | dates; numbers and numeric strings (seconds since 2001-01-01 UTC) |
    /// | `NSDecimalNumber` | numbers (a double by its shortest printed form); numeric strings |
    /// | `NSUUID`, `NSURL` | the same kind; strings |
    /// | `NSData` | data; base64 strings |
    /// - Throws: `StrataError(.predicateEvaluation)` for an unknown type name, a type that
    ///   is not a string, or a value that does not convert (naming the value and the type).
    package static func cast(_ value: PropertyValue, to type: PropertyValue) throws -> PropertyValue {
        guard case .string(let name) = type else {
            throw StrataError(.predicateEvaluation, "CAST needs a type name string such as 'NSNumber', not \(withArticle(ModelValueRules.kindName(type)))",
                              context: .init { $0.function = FetchFunction.castObject.rawValue })
        }
        guard typeNames.contains(name) else {
            throw StrataError(.predicateEvaluation,
                              "unknown CAST type \(name.debugDescription) (expected \(typeNames.dropLast().joined(separator: ", ")) or NSData)",
                              context: .init { $0.function = FetchFunction.castObject.rawValue; $0.expectedType = name })
        }
        if PredicateValueRules.isNull(value) { return .null }
        if let converted = convert(value, to: name) { return converted }
        let shown = if case .string(let text) = value { text.debugDescription } else { "\(withArticle(ModelValueRules.kindName(value))) value" }
        throw StrataError(.predicateEvaluation, "cannot CAST \(shown) to \(name)",
                          context: .init { $0.function = FetchFunction.castObject.rawValue; $0.valueType = ModelValueRules.kindName(value); $0.expectedType = name })
    }

    private static func convert(_ value: PropertyValue, to name: String) -> PropertyValue? {
        switch (name, value) {
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal): return value
        case ("NSNumber", .boolean(let flag)): return .integer(flag ? 1 : 0)
        case ("NSNumber", .date(let date)): return .double(date.timeIntervalSinceReferenceDate)
        case ("NSNumber", .string(let text)): return Int64(text).map(PropertyValue.integer) ?? Double(text).map(PropertyValue.double)
        case ("NSString", .string): return value
        case ("NSString", .integer(let number)): return .string(String(number))
        case ("NSString", .double(let number)): return .string(String(number))
        case ("NSString", .decimal(let number)): return .string("\(number)")
        case ("NSString", .boolean(let flag)): return .string(flag ? "1" : "0")
        case ("NSString", .date(let date)): return .string(description(of: date))
        case ("NSString", .uuid(let uuid)): return .string(uuid.uuidString)
        case ("NSString", .uri(let url)): return .string(url.absoluteString)
        case ("NSDate", .date): return value
        case ("NSDate", .string(let text)): return Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case ("NSDate", _): return ExpressionArithmetic.number(value).map { .date(Date(timeIntervalSinceReferenceDate: $0.double)) }
        case ("NSDecimalNumber", .decimal): return value
        case ("NSDecimalNumber", .integer(let number)): return .decimal(Decimal(number))
        case ("NSDecimalNumber", .boolean(let flag)): return .decimal(flag ? 1 : 0)
        case ("NSDecimalNumber", .double(let number)):
            return number.isFinite ? Decimal(string: String(number), locale: nil).map(PropertyValue.decimal) : nil
        case ("NSDecimalNumber", .string(let text)): return Decimal(string: text, locale: nil).map(PropertyValue.decimal)
        case ("NSUUID", .uuid), ("NSURL", .uri), ("NSData", .data): return value
        case ("NSUUID", .string(let text)): return UUID(uuidString: text).map(PropertyValue.uuid)
        case ("NSURL", .string(let text)): return URL(string: text).map(PropertyValue.uri)
        case ("NSData", .string(let text)): return Data(base64Encoded: text).map(PropertyValue.data)
        default: return nil
        }
    }

    /// `NSDate`'s description: "2001-01-01 00:00:00 +0000", in UTC.
    static func description(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : String($0) } ?? "00" }
        let year = c.year.map { String(format: "%04d", $0) } ?? "0000"
        return "\(year)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
