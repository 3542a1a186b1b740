import Foundation

extension ManagedObject {
    /// Replaces the characters `range` of a text attribute with `string`, as typing does: a
    /// splice the log records by the identities of the characters it changes, which merges
    /// with other contexts', processes' and replicas' edits of the same text character by
    /// character and is undone as one (docs/TEXT.md).
    ///
    /// Positions count **Unicode scalars** (`String.unicodeScalars`), the unit Loro and
    /// Automerge count in; ``replaceCharacters(in:with:forKey:)-(NSRange,_,_)`` takes UTF-16
    /// ranges, as `NSString` and text views give them.
    ///
    /// ```swift
    /// try note.replaceCharacters(in: 0..<0, with: "Hello", forKey: "body")   // insert
    /// try note.replaceCharacters(in: 0..<1, with: "J", forKey: "body")       // "Jello"
    /// try note.replaceCharacters(in: 4..<5, with: "", forKey: "body")        // "Jell"
    /// ```
    /// - Throws: `.unknownKey`; `.typeMismatch` when the key is not a text attribute
    ///   (``AttributeDescription/isText``: set other strings with `setValue`);
    ///   `.invalidArgument` when the range is outside the text; what a change throws when
    ///   undo registration is in a state that refuses changes.
    public func replaceCharacters(in range: Range<Int>, with string: String, forKey key: String) throws {
        let slot = try textSlot(forKey: key)
        let context = try requireContext()
        try context.replaceText(of: self, slot: slot, range: range, with: Array(string.unicodeScalars))
    }

    /// Replaces the characters `range` (UTF-16 code units, as `NSString` and text views
    /// count) of a text attribute with `string`; see
    /// ``replaceCharacters(in:with:forKey:)-(Range<Int>,_,_)``.
    /// - Throws: as the other form; `.invalidArgument` also when the range splits a
    ///   character that UTF-16 stores as two units.
    public func replaceCharacters(in range: NSRange, with string: String, forKey key: String) throws {
        let slot = try textSlot(forKey: key)
        try ensureLoaded()
        let value = storage[slot].textValue
        let utf16 = value.utf16
        guard range.location >= 0, range.length >= 0, range.location + range.length <= utf16.count,
              let start = utf16.index(utf16.startIndex, offsetBy: range.location).samePosition(in: value.unicodeScalars),
              let end = utf16.index(utf16.startIndex, offsetBy: range.location + range.length).samePosition(in: value.unicodeScalars)
        else {
            throw StrataError(.invalidArgument,
                              "\(entity.name).\(key) has \(utf16.count) UTF-16 units; the range \(range.location)..<\(range.location + range.length) is outside them or splits a character.",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        let scalars = value.unicodeScalars
        let lower = scalars.distance(from: scalars.startIndex, to: start)
        let upper = lower + scalars.distance(from: start, to: end)
        try replaceCharacters(in: lower..<upper, with: string, forKey: key)
    }

    func textSlot(forKey key: String) throws -> Int {
        let slot = try slotIndex(forKey: key)
        guard entity.isText(slot: slot) else {
            throw StrataError(.typeMismatch,
                              "\(entity.name).\(key) is not a text attribute; set it with setValue(_:forKey:), or make it a text in the model (docs/TEXT.md).",
                              context: .init { $0.entity = entity.name; $0.key = key })
        }
        return slot
    }
}
