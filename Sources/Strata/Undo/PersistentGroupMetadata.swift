import Foundation

/// An undo group's metadata as a document keeps it: the JSON encoding of a `Codable` value
/// an app gave ``ContextUndoManager/setPersistentGroupMetadata(_:)``, saved with the group's
/// record in the log (docs/FORMAT.md §22) and handed back by a reopened document's restored
/// undo history (docs/TEXT.md, "Selections that survive reopening").
///
/// Before a document is reopened, ``ContextUndoManager/undo()`` hands back the value itself;
/// after, it hands back this wrapper, which decodes to the app's type. The typed accessors
/// (``ContextUndoManager/undoGroupMetadata(as:)``,
/// ``ContextUndoManager/groupMetadata(_:as:)``) answer alike for both:
///
/// ```swift
/// try undo.setPersistentGroupMetadata(Selection(start: caret, end: caret))
/// // … saved, closed, reopened, history restored …
/// let metadata = try undo.undo()
/// let selection = try ContextUndoManager.groupMetadata(metadata, as: Selection.self)
/// ```
public struct PersistentGroupMetadata: Hashable, Sendable {
    /// The most bytes a group's persistent metadata may encode to: 64 KiB — a selection or a
    /// few values, not a document (docs/FORMAT.md §22.1).
    public static let maximumSize = SegmentFormat.maximumGroupMetadataSize

    /// The encoded value: JSON, as `JSONEncoder` writes it with sorted keys.
    public let bytes: [UInt8]

    /// Wraps bytes read from a group's record (already checked against ``maximumSize``).
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Encodes `value` as a group's persistent metadata.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` when the value cannot be
    ///   encoded, or encodes to more than ``maximumSize`` bytes; the message names its type.
    public init(encoding value: some Encodable) throws {
        let typeName = String(describing: type(of: value))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw StrataError(.invalidArgument, "The undo group metadata of type \(typeName) cannot be encoded: \(error). The group's metadata is unchanged.")
        }
        guard data.count <= Self.maximumSize else {
            throw StrataError(.invalidArgument, "The undo group metadata of type \(typeName) encodes to \(data.count) bytes; persistent group metadata may have at most \(Self.maximumSize) bytes (PersistentGroupMetadata.maximumSize). The group's metadata is unchanged; keep a selection, not a document, in it.")
        }
        bytes = Array(data)
    }

    /// The value the metadata encodes, decoded as `type`.
    /// - Throws: ``StrataStorage/StrataError`` `.invalidArgument` naming `type` when the
    ///   bytes do not decode as it (metadata of another type, or of an older version of it).
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw StrataError(.invalidArgument, "The undo group metadata (\(bytes.count) bytes) does not decode as \(String(describing: type)): \(error).")
        }
    }
}
