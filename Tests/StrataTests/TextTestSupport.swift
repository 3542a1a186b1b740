import Foundation
@testable import Strata

/// A model with a note whose title and body are texts (docs/TEXT.md) and whose tag is a
/// plain string.
let textNoteModel: ManagedObjectModel = {
    func text(_ name: String) -> AttributeDescription {
        var attribute = AttributeDescription(name, .string)
        attribute.isText = true
        return attribute
    }
    return try! ManagedObjectModel(entities: [
        EntityDescription("Note", attributes: [text("title"), text("body"), AttributeDescription("tag", .string)]),
    ])
}()

extension ManagedObject {
    /// Types `text` one character at a time at `position`, each keystroke its own splice.
    func type(_ text: String, at position: Int, into key: String) throws {
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            try replaceCharacters(in: (position + offset)..<(position + offset), with: String(scalar), forKey: key)
        }
    }

    func text(_ key: String) throws -> String { try value(forKey: key).textValue }
}
