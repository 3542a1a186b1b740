import Foundation
import Strata
import StrataToolSupport

/// `strata fetch --select` and `--group-by`: comma-separated items, each an expression in
/// NSExpression format with an optional `AS name` (`AS name:type` to choose the result
/// type), read into the library's ``FetchProperty`` values.
///
/// ```
/// department.name, sum:(salary) AS total, average:(salary) AS mean:integer64
/// ```
///
/// Each item is what ``FetchProperty/init(parsing:entity:)`` reads (the library's one
/// parser of this form); this splits the option's value and places errors in it.
enum SelectList {
    /// The items of `text` (`option` names the command-line option in errors).
    static func properties(_ text: String, option: String, entity: EntityDescription) throws -> [FetchProperty] {
        try FetchProperty.items(of: text).map { item in
            try property(item.text, offset: item.offset, option: option, whole: text, entity: entity)
        }
    }

    /// One item, read by ``FetchProperty/init(parsing:entity:)``; its errors name the
    /// option and the column in the whole option value.
    private static func property(_ item: String, offset: Int, option: String, whole: String, entity: EntityDescription) throws -> FetchProperty {
        guard !item.isEmpty else {
            throw StrataError(.predicateSyntax, "\(option): an empty item at column \(offset + 1) (in: \(FetchCommand.excerpt(whole, column: offset + 1)))",
                              context: .init { $0.column = offset + 1; $0.option = option })
        }
        do {
            return try FetchProperty(parsing: item, entity: entity)
        } catch var error as StrataError {
            let column = (error.context.column ?? 1) + offset
            error.context.column = column
            error.context.option = option
            // The library counts columns within the item; here they count within the option.
            var message = error.message.replacingOccurrences(of: #" of '.*'\.$"#, with: "", options: .regularExpression)
            if let first = message.range(of: "at column [0-9]+", options: .regularExpression) {
                message.replaceSubrange(first, with: "at column \(column)")
            }
            error.message = "\(option): \(message) (in: \(FetchCommand.excerpt(whole, column: column)))"
            throw error
        }
    }
}
