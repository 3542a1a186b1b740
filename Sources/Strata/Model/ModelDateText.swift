import Foundation

/// Exact ISO-8601 text for dates in model files (docs/MODEL-FORMAT.md, "Values").
///
/// Writes `YYYY-MM-DDTHH:MM:SS[.fraction]Z` in UTC, where the fraction is the shortest
/// decimal that reads back as the same `Double`, so `date(from: string(from: d)) == d` for
/// every date between the years 1 and 9999. Reads the same form with an optional `Z` or
/// `±HH:MM` offset. The calendar arithmetic is proleptic Gregorian, done here so the text
/// never depends on a formatter, locale or time zone database.
package enum ModelDateText {
    private static let secondsPerDay: Int64 = 86_400
    /// Days from 1970-01-01 to 2001-01-01 (Foundation's reference date).
    private static let referenceDayFrom1970: Int64 = 11_323

    /// The ISO-8601 text of a date, or nil when its year is outside 1...9999 or it is not finite.
    package static func string(from date: Date) -> String? {
        var text: [UInt8] = []
        text.reserveCapacity(32)
        guard append(date, to: &text) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the ISO-8601 text of a date as UTF-8 (what ``string(from:)`` returns), or
    /// appends nothing and returns false when its year is outside 1...9999 or it is not
    /// finite. Bytes, not string pieces: exports write a date per row (docs/BENCHMARKS.md, W13).
    package static func append(_ date: Date, to text: inout [UInt8]) -> Bool {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 400_000_000_000 else { return false }
        let whole = interval.rounded(.down)
        let fraction = interval - whole
        let seconds = Int64(whole)
        let days = floorDivide(seconds, secondsPerDay)
        let secondOfDay = seconds - days * secondsPerDay
        let (year, month, day) = civil(fromDaysSince1970: days + referenceDayFrom1970)
        guard (1...9999).contains(year) else { return false }
        appendDigits(year, width: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &text)
        text.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &text)
        if fraction > 0 {
            text.append(UInt8(ascii: "."))
            text.append(contentsOf: fractionDigits(fraction).utf8)
        }
        text.append(UInt8(ascii: "Z"))
        return true
    }

    /// A non-negative value's decimal digits, zero-padded to `width`.
    private static func appendDigits(_ value: Int64, width: Int, to text: inout [UInt8]) {
        // The fields of nearly every date: two digits, or a four-digit year.
        if width == 2, (0..<100).contains(value) {
            text.append(UInt8(ascii: "0") + UInt8(value / 10))
            text.append(UInt8(ascii: "0") + UInt8(value % 10))
            return
        }
        if width == 4, (1000..<10_000).contains(value) {
            text.append(UInt8(ascii: "0") + UInt8(value / 1000))
            text.append(UInt8(ascii: "0") + UInt8(value / 100 % 10))
            text.append(UInt8(ascii: "0") + UInt8(value / 10 % 10))
            text.append(UInt8(ascii: "0") + UInt8(value % 10))
            return
        }
        var divisor: Int64 = 1
        var count = 1
        while divisor <= value / 10 {
            divisor *= 10
            count += 1
        }
        for _ in count..<max(width, count) { text.append(UInt8(ascii: "0")) }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The date an ISO-8601 text names, or nil when the text is not in the accepted form.
    package static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The date the ISO-8601 text in `chars` (UTF-8) names, or nil when it is not in the
    /// accepted form: ``date(from:)`` for bytes that are not a `String` yet (an import's cell).
    package static func date(fromUTF8 chars: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= chars.count else { return nil }
            var value: Int64 = 0
            for byte in chars[index..<index + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += count
            return value
        }
        // A byte, not a `Character`: its `asciiValue` went through the character's string
        // for every separator of every date cell of an import.
        func expect(_ character: Unicode.Scalar) -> Bool {
            guard index < chars.count, chars[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
              let second = number(2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysInMonth(year, month),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var fraction = 0.0
        if expect(".") {
            let start = index
            while index < chars.count, (48...57).contains(chars[index]) { index += 1 }
            guard index > start, index - start <= 400,
                  let value = Double("0." + String(decoding: chars[start..<index], as: UTF8.self))
            else { return nil }
            fraction = value
        }
        var offsetSeconds: Int64 = 0
        if expect("Z") {
            offsetSeconds = 0
        } else if index < chars.count, chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let sign: Int64 = chars[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2),
                  offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == chars.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day) - referenceDayFrom1970
        let seconds = days * secondsPerDay + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSinceReferenceDate: Double(seconds) + fraction)
    }

    /// The digits after "0." of the shortest decimal that reads back as `fraction` (0 < fraction < 1).
    private static func fractionDigits(_ fraction: Double) -> String {
        let text = fraction.description
        guard let exponentMark = text.firstIndex(where: { $0 == "e" || $0 == "E" }) else {
            return String(text.drop(while: { $0 != "." }).dropFirst())
        }
        // "d.ddde-N": N - 1 zeros, then the mantissa digits.
        let mantissa = text[..<exponentMark].filter(\.isNumber)
        let exponent = Int(text[text.index(after: exponentMark)...]) ?? -1
        let digits = String(mantissa.reversed().drop(while: { $0 == "0" }).reversed())
        return String(repeating: "0", count: max(0, -exponent - 1)) + (digits.isEmpty ? "0" : digits)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (eras of 400 years, March-based years).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = floorDivide(marchYear, 400)
        let yearOfEra = marchYear - era * 400
        let marchMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * marchMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (inverse of the above).
    private static func civil(fromDaysSince1970 days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
