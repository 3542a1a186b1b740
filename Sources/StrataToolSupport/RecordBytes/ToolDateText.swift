import Foundation
import Strata

/// Dates as the tools write them (ISO-8601 in UTC, ``ToolValueText/text(of:)``'s text),
/// appended as bytes, remembering the last day's `YYYY-MM-DDT`: the rows of a fetch
/// often share days, and the calendar arithmetic per date was a twentieth of W13's CSV
/// (docs/BENCHMARKS.md). A date with a fraction of a second is written by
/// `ModelDateText` whole.
package struct ToolDateText {
    private static let secondsPerDay: Int64 = 86_400
    /// The day (from the reference date) whose text ``dayText`` is.
    private var day = Int64.min
    private var dayText: [UInt8] = []

    /// Creates a writer that remembers nothing yet.
    package init() {}

    /// Appends the date's text, or appends nothing and returns false when `ModelDateText`
    /// has none for it (its year is outside 1...9999 or it is not finite).
    package mutating func append(_ date: Date, to output: inout [UInt8]) -> Bool {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 400_000_000_000 else { return false }
        let whole = interval.rounded(.down)
        guard whole == interval else { return ModelDateText.append(date, to: &output) }
        let seconds = Int64(whole)
        // Rounded toward negative infinity, as the day of a date before 2001 is.
        let days = seconds >= 0 ? seconds / Self.secondsPerDay : -((-seconds + Self.secondsPerDay - 1) / Self.secondsPerDay)
        if days != day {
            var text: [UInt8] = []
            // Midnight of the day: `YYYY-MM-DDT00:00:00Z`, whose first 11 bytes are the day's.
            guard ModelDateText.append(Date(timeIntervalSinceReferenceDate: Double(days * Self.secondsPerDay)), to: &text) else { return false }
            dayText = Array(text.prefix(11))
            day = days
        }
        let second = seconds - days * Self.secondsPerDay
        output.append(contentsOf: dayText)
        Self.appendTwoDigits(second / 3600, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.appendTwoDigits(second / 60 % 60, to: &output)
        output.append(UInt8(ascii: ":"))
        Self.appendTwoDigits(second % 60, to: &output)
        output.append(UInt8(ascii: "Z"))
        return true
    }

    private static func appendTwoDigits(_ value: Int64, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "0") + UInt8(value / 10))
        output.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
