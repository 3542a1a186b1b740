/// `word` after its indefinite article, for messages: "an integer", "a string",
/// "an Employee". The article follows the first letter (a vowel takes "an"), which is right
/// for the type, entity and value-kind names messages use.
func withArticle(_ word: Any) -> String {
    let text = String(describing: word)
    guard let first = text.first else { return "a" }
    return ("aeiouAEIOU".contains(first) ? "an " : "a ") + text
}
