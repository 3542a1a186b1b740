/// Quoting a caller's text inside an error message: `"has no property \(input: key)"`
/// gives `'salary'`, and a text over ``limit`` characters gives its first 100 and last 40
/// with the count between, so that no message echoes more than 200 characters of what a
/// user typed or a file held (docs/RELIABILITY.md, "Bad input"): a 40 KB key or URI would
/// bury the one line that says what is wrong.
extension DefaultStringInterpolation {
    /// The longest text quoted whole.
    package static var inputQuotingLimit: Int { 200 }

    /// Appends `text` in single quotes, shortened past ``inputQuotingLimit`` characters.
    package mutating func appendInterpolation(input text: some StringProtocol) {
        appendLiteral("'")
        if text.count <= Self.inputQuotingLimit {
            appendLiteral(String(text))
        } else {
            appendLiteral("\(text.prefix(100))…(\(text.count - 140) more characters)…\(text.suffix(40))")
        }
        appendLiteral("'")
    }
}
