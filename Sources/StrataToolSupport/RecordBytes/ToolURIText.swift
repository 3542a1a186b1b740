import Foundation
import Strata

/// Object URIs as the tools write them, appended as bytes: `x-strata://STORE/Entity/pKEY`,
/// the text of ``ManagedObjectID/description``.
///
/// Every ID of one entity and store starts with the same text, so the part before the key
/// is found once per scope (``ManagedObjectID/scopeIdentity``) and each URI is that prefix
/// and the key's digits. An ID whose URI needs percent-encoding (a store identifier or an
/// entity name beyond letters, digits, `_`, `-`, `.`) has no prefix: its whole
/// description is written, as before.
package struct ToolURIText {
    /// The scope last asked for and its prefix: the rows of a fetch are nearly always of
    /// one entity. The ID keeps its scope alive, so the identifier stays its.
    private var last: (id: ManagedObjectID, prefix: [UInt8]?)?
    private var prefixes: [ObjectIdentifier: (id: ManagedObjectID, prefix: [UInt8]?)] = [:]

    /// Creates an empty cache.
    package init() {}

    /// The bytes every URI of `id`'s scope starts with, before the key's digits; nil when
    /// such a URI is not the plain concatenation (temporary, or percent-encoded).
    package mutating func prefix(for id: ManagedObjectID) -> [UInt8]? {
        let scope = id.scopeIdentity
        if let last, last.id.scopeIdentity == scope { return last.prefix }
        let entry = prefixes[scope] ?? (id, Self.computePrefix(of: id))
        prefixes[scope] = entry
        last = entry
        return entry.prefix
    }

    /// Appends the URI's text, unescaped: for a plain URI that is all it needs in JSON and
    /// CSV (its bytes are letters, digits and `/:._-`).
    /// - Returns: false, appending nothing, when the ID has no prefix (the caller escapes
    ///   its ``ManagedObjectID/description`` as its format asks).
    package mutating func appendPlain(_ id: ManagedObjectID, to output: inout [UInt8]) -> Bool {
        guard let prefix = prefix(for: id) else { return false }
        output.append(contentsOf: prefix)
        ToolValueBytes.appendInteger(id.primaryKey, to: &output)
        return true
    }

    /// Appends the URI as a JSON string literal.
    package mutating func appendJSON(_ id: ManagedObjectID, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        if !appendPlain(id, to: &output) {
            var text = id.description
            text.withUTF8 { ToolValueBytes.appendJSONEscaped($0, to: &output) }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static func computePrefix(of id: ManagedObjectID) -> [UInt8]? {
        guard !id.isTemporaryID, let store = id.storeIdentifier else { return nil }
        let prefix = "x-strata://\(store)/\(id.entity.name)/p"
        // The description is the plain text exactly when nothing needed percent-encoding,
        // and whether it did does not depend on the key's digits.
        guard id.description == prefix + String(id.primaryKey) else { return nil }
        return Array(prefix.utf8)
    }
}
