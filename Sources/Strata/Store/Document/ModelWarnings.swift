import Foundation

/// The load warnings of a document's model (``ManagedObjectModel/loadWarnings``), kept in
/// `strata_meta` under ``key`` as a JSON array of sentences (docs/FORMAT.md, "Meta keys").
///
/// The stored model is the model as Strata understood it, so it no longer holds what a
/// lenient read of an Xcode model left out; without this key a document would forget that
/// anything was left out once `strata new` had printed it. The key is not one of the
/// identity fields: a damaged copy loses only the warnings, never the document.
enum ModelWarnings {
    static let key = "modelWarnings"

    /// The meta value for `warnings`, or nil when there are none (no key is written).
    static func value(_ warnings: [String]) -> SQLiteValue? {
        guard !warnings.isEmpty, let data = try? JSONSerialization.data(withJSONObject: warnings) else { return nil }
        return .text(String(decoding: data, as: UTF8.self))
    }

    /// The warnings a meta value holds; none when it is missing or unreadable.
    static func read(_ value: SQLiteValue?) -> [String] {
        guard case .text(let text)? = value,
              let array = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any] else { return [] }
        return array.compactMap { $0 as? String }
    }

    /// Replaces the stored warnings with `warnings` (a migration's new model).
    static func write(_ warnings: [String], _ connection: SQLiteConnection) throws {
        if let value = value(warnings) {
            try DocumentFile.writeMeta(connection, key: key, value)
        } else {
            try connection.prepare("DELETE FROM strata_meta WHERE key = ?").run([.text(key)])
        }
    }
}
