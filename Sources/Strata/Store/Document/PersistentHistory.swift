import Foundation

/// A point in a document's persistent history: the sequence of one saved segment
/// (Core Data's `NSPersistentHistoryToken`). Tokens of one document compare in save
/// order, and can be stored (``description`` and `Codable` both hold just the number)
/// and given back to ``DocumentStore/history(_:)`` to read what was saved after them.
///
/// ```swift
/// let token = try document.currentHistoryToken
/// UserDefaults.standard.set(try JSONEncoder().encode(token), forKey: "lastSeen")
/// ```
public struct PersistentHistoryToken: Codable, Comparable, Hashable, Sendable, CustomStringConvertible,
    LosslessStringConvertible
{
    /// The sequence of the segment the token stands for; 0 is before the first save.
    public var sequence: UInt64

    /// Creates the token of the segment with `sequence`.
    public init(sequence: UInt64) { self.sequence = sequence }

    /// Parses the decimal sequence ``description`` writes; nil for anything else.
    public init?(_ description: String) {
        guard let sequence = UInt64(description) else { return nil }
        self.sequence = sequence
    }

    /// The sequence, in decimal.
    public var description: String { String(sequence) }

    /// Whether `lhs` was saved before `rhs`.
    public static func < (lhs: PersistentHistoryToken, rhs: PersistentHistoryToken) -> Bool {
        lhs.sequence < rhs.sequence
    }

    /// Encodes the token as its sequence number alone.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(sequence)
    }

    /// Decodes a token written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        sequence = try decoder.singleValueContainer().decode(UInt64.self)
    }
}

/// What a ``PersistentHistoryChange`` did to its object.
public enum PersistentHistoryChangeKind: String, Sendable, Hashable, Codable {
    /// The save inserted the object.
    case insert
    /// The save changed some of the object's properties.
    case update
    /// The save deleted the object (also when the same save had inserted it).
    case delete
}

/// One property of a ``PersistentHistoryChange``, with its value before and after the save
/// (Core Data keeps neither).
public struct PersistentHistoryPropertyChange: Sendable, Hashable {
    /// The property's name.
    public var key: String
    /// The value before the save: `.null` for an insert; nil for a to-many membership
    /// change, which records only ``added`` and ``removed``, and for a text edited by
    /// splices (``AttributeDescription/isText``), whose log holds its edits, not its values.
    public var old: PropertyValue?
    /// The value after the save: `.null` for a delete; nil for a to-many membership change
    /// and for a text edited by splices.
    public var new: PropertyValue?
    /// For a to-many membership change, the objects the save added to the relationship.
    public var added: [ManagedObjectID]
    /// For a to-many membership change, the objects the save removed from it.
    public var removed: [ManagedObjectID]

    /// Creates a property change.
    public init(key: String, old: PropertyValue?, new: PropertyValue?, added: [ManagedObjectID] = [],
                removed: [ManagedObjectID] = []) {
        self.key = key
        self.old = old
        self.new = new
        self.added = added
        self.removed = removed
    }
}

/// What one save did to one object (Core Data's `NSPersistentHistoryChange`), read from the
/// segment's operations: every operation on the object in the save, folded into one change.
public struct PersistentHistoryChange: Sendable, Hashable {
    /// The object.
    public var objectID: ManagedObjectID
    /// Inserted, updated or deleted.
    public var kind: PersistentHistoryChangeKind
    /// The properties the save set, in slot order, each with its first old and last new
    /// value in the save. An insert lists every persistent property with its value, a delete
    /// every persistent property with the value it had.
    public var properties: [PersistentHistoryPropertyChange]

    /// The names of the changed properties (Core Data's `updatedProperties`).
    public var changedKeys: [String] { properties.map(\.key) }

    /// Creates a change.
    public init(objectID: ManagedObjectID, kind: PersistentHistoryChangeKind, properties: [PersistentHistoryPropertyChange]) {
        self.objectID = objectID
        self.kind = kind
        self.properties = properties
    }
}

/// One saved segment of a document, as history (Core Data's
/// `NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// The transaction's token: the segment's sequence.
    public var token: PersistentHistoryToken
    /// When it was saved (millisecond precision).
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, or nil.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``, or nil.
    public var contextName: String?
    /// The undo groups of the save, oldest first (ID, kind, reverted group, action name).
    public var groups: [ChangeGroupInfo]
    /// The changes, one per object, in the order the save first touched each object.
    public var changes: [PersistentHistoryChange]

    /// The action name of the save's last group that has one ("Raise Salary"), or nil.
    public var actionName: String? { groups.last(where: { !$0.actionName.isEmpty })?.actionName }

    /// Creates a transaction.
    public init(token: PersistentHistoryToken, timestamp: Date, author: String?, contextName: String?,
                groups: [ChangeGroupInfo], changes: [PersistentHistoryChange]) {
        self.token = token
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.groups = groups
        self.changes = changes
    }
}

/// Which transactions ``DocumentStore/history(_:)`` returns (Core Data's
/// `NSPersistentHistoryChangeRequest`): every filter that is set must match.
public struct PersistentHistoryRequest: Sendable, Hashable {
    /// Only transactions saved after this token.
    public var after: PersistentHistoryToken?
    /// Only transactions saved at or after this date.
    public var since: Date?
    /// Only transactions whose author is one of these.
    public var authors: Set<String>?
    /// Only transactions whose context name is one of these.
    public var contextNames: Set<String>?
    /// Only changes to objects of these entities (or their sub-entities), by name;
    /// transactions left with no change are left out.
    public var entityNames: Set<String>?

    /// Creates a request; with no argument, every retained transaction.
    public init(after: PersistentHistoryToken? = nil, since: Date? = nil, authors: Set<String>? = nil,
                contextNames: Set<String>? = nil, entityNames: Set<String>? = nil) {
        self.after = after
        self.since = since
        self.authors = authors
        self.contextNames = contextNames
        self.entityNames = entityNames
    }
}
