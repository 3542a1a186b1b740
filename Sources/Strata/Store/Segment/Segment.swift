import Foundation

/// One save's worth of the operation log: the undo groups a save appends to a document,
/// as written to (and read from) one segment body (docs/FORMAT.md §2).
///
/// ```swift
/// let segment = Segment(sequence: 7, timestamp: Date(), groups: [
///     SegmentGroup(id: 12, kind: .user, revertsGroup: nil, actionName: "Raise Salary",
///                  operations: [.update(employeeID, changes: [SlotChange(slot: 3, old: 50, new: 55)])]),
/// ])
/// let body = try SegmentEncoder.encode(segment, model: model)
/// ```
public struct Segment: Hashable, Sendable {
    /// The segment's position in the document's log, starting at 1.
    public var sequence: UInt64
    /// When the save happened (stored with millisecond precision).
    public var timestamp: Date
    /// The undo groups of the save, in log order.
    public var groups: [SegmentGroup]
    /// Who saved it: the saving context's ``ManagedObjectContext/transactionAuthor``, or
    /// nil (format version 3, docs/FORMAT.md §15).
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``, or nil (format version 3).
    public var contextName: String?

    /// Creates a segment.
    public init(sequence: UInt64, timestamp: Date, groups: [SegmentGroup], author: String? = nil, contextName: String? = nil) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.groups = groups
        self.author = author
        self.contextName = contextName
    }

    /// Whether the segment needs format version 3 to be written: it names an author or a
    /// context (docs/FORMAT.md §15).
    var hasMetadata: Bool { author != nil || contextName != nil }

    /// Whether the segment needs format version 4 or later to be written: it holds text
    /// edits (docs/FORMAT.md §17, §19).
    var hasTextEdits: Bool {
        groups.contains { group in group.operations.contains { if case .splice = $0 { return true } else { return false } } }
    }

    /// Whether the segment needs format version 6 to be written: a group carries saved
    /// metadata (docs/FORMAT.md §22).
    var hasGroupMetadata: Bool { groups.contains { $0.metadata != nil } }

    /// The version a segment of `model` is written in unless one is asked for: the lowest
    /// that holds what it holds, so older builds read every segment that needs nothing
    /// newer. Only a model with texts has its operations looked through: text edits are
    /// written in version 5's packed form (§19). A group with saved metadata needs version
    /// 6 (§22), which is version 5 plus the metadata.
    func formatVersion(in model: ManagedObjectModel) -> UInt64 {
        if hasGroupMetadata { return SegmentFormat.groupMetadataVersion }
        if model.hasTexts, hasTextEdits { return SegmentFormat.packedTextVersion }
        return hasMetadata ? SegmentFormat.metadataVersion : SegmentFormat.version
    }
}

/// One undo group inside a segment: its identity, what kind of change it records, the
/// group it reverts (for undo and redo groups), its action name and its operations
/// (docs/FORMAT.md §3).
public struct SegmentGroup: Hashable, Sendable {
    /// The group's id, kind, reverted group and action name: the same four fields the
    /// group table and the undo stack record, held once.
    public var info: ChangeGroupInfo
    /// The group's operations, in the order they were made.
    public var operations: [ChangeOperation]
    /// The app's saved metadata for the group — the encoded bytes of a value given to
    /// ``ContextUndoManager/setPersistentGroupMetadata(_:)``, typically the selection to restore
    /// on undo — or nil. At most ``PersistentGroupMetadata/maximumSize`` bytes; written in format
    /// version 6 (docs/FORMAT.md §22).
    public var metadata: [UInt8]?

    /// The group's ID, unique within the document's log.
    public var id: UInt64 {
        get { info.id }
        set { info.id = newValue }
    }
    /// What kind of change the group records.
    public var kind: ChangeGroupKind {
        get { info.kind }
        set { info.kind = newValue }
    }
    /// For an undo or redo group, the ID of the group it reverts.
    public var revertsGroup: UInt64? {
        get { info.revertsGroup }
        set { info.revertsGroup = newValue }
    }
    /// The undo action name shown to users ("Typing", "Delete Employee"); may be empty.
    public var actionName: String {
        get { info.actionName }
        set { info.actionName = newValue }
    }

    /// Creates a group.
    public init(id: UInt64, kind: ChangeGroupKind, revertsGroup: UInt64?, actionName: String, operations: [ChangeOperation],
                metadata: [UInt8]? = nil) {
        self.init(ChangeGroupInfo(id: id, kind: kind, revertsGroup: revertsGroup, actionName: actionName), operations: operations,
                  metadata: metadata)
    }

    /// Creates a group from its information, operations and saved metadata.
    public init(_ info: ChangeGroupInfo, operations: [ChangeOperation], metadata: [UInt8]? = nil) {
        self.info = info
        self.operations = operations
        self.metadata = metadata
    }
}

/// The constants of segment formats v1 to v6 (docs/FORMAT.md) and the slot rules the
/// encoder and the decoder share, so that nothing is written that could not be read back.
enum SegmentFormat {
    /// `STRS` (§2).
    static let magic: [UInt8] = Array("STRS".utf8)
    /// The version this code writes for a segment without author or context name (§2,
    /// §13); one with them is written as ``metadataVersion``.
    static let version: UInt64 = 2
    /// The version that adds the author and context name to the header (§15).
    static let metadataVersion: UInt64 = 3
    /// The version that adds text edits (the `splice` operation, §17) to version 3's.
    static let textVersion: UInt64 = 4
    /// The version that packs text edits (§19): a peer table and the body's text before
    /// the groups, steps written against the steps before them, compact group headers.
    static let packedTextVersion: UInt64 = 5
    /// The version that adds a group's saved metadata (§22) to version 5's.
    static let groupMetadataVersion: UInt64 = 6
    /// The most bytes a group's saved metadata may have (§22.1): a selection or a few
    /// values, not a document; the encoder and the decoder both refuse more.
    static let maximumGroupMetadataSize = 64 * 1024
    /// The versions this code reads: every version ever written (§10).
    static let readableVersions: ClosedRange<UInt64> = 1...6

    /// How hard a body of `version` is compressed (§9.1): a body with packed text edits at
    /// LZ4's high level — a save of typing is a little text and a run of near-identical step
    /// headers, which the fast level compresses poorly (§19.11) and which is small enough
    /// that the slower search costs little; every other body at the fast level.
    static func compressionLevel(forVersion version: UInt64) -> LZ4Frame.Level {
        version >= packedTextVersion ? .high : .fast
    }

    /// Operation tags (§4); `insertRun` from version 2 (§13.2), `splice` from version 4
    /// (§17), `spliceAgain` (a splice of the previous splice's object and slot) from
    /// version 5 (§19.6).
    enum OperationTag: UInt8 {
        case insert = 0x01, delete = 0x02, update = 0x03, relate = 0x04, insertRun = 0x05, splice = 0x06
        case spliceAgain = 0x07
    }

    /// Value tags (§6).
    enum ValueTag: UInt8 {
        case null = 0x00, integer = 0x01, double = 0x02, decimal = 0x03, string = 0x04
        case boolFalse = 0x05, boolTrue = 0x06, date = 0x07, data = 0x08, uuid = 0x09
        case uri = 0x0A, object = 0x0B, objects = 0x0C
    }

    /// Decimal sign bytes (§6.1).
    enum DecimalSign: UInt8 {
        case plus = 0, minus = 1, notANumber = 2
    }

    /// The smallest encoded sizes, used to bound counts before reserving capacity (§8).
    static let minimumGroupSize = 5          // id, kind, reverts flag, name length, op count
    static let minimumOperationSize = 4      // tag, entity, key, count
    static let minimumObjectIDSize = 2       // entity, key
    static let minimumSlotValueSize = 2      // slot, value tag
    static let minimumSlotChangeSize = 3     // slot, old tag, new tag
    static let minimumRunRowSize = 1         // v2: a row of an insert run, its key (§13.2)
    static let minimumPackedGroupSize = 3    // v5: id, header byte, op count (§19.1)

    /// Version 5's group header byte (§19.1): bits 0–2 the kind, bit 3 a reverted group
    /// follows, bit 4 the action name is the previous group's; bits 5–7 zero. Version 6
    /// (§22.1): bit 5 the group's saved metadata follows; bits 6–7 zero.
    enum PackedGroup {
        static let kindMask: UInt8 = 0b111
        static let reverts: UInt8 = 1 << 3
        static let sameAction: UInt8 = 1 << 4
        static let metadata: UInt8 = 1 << 5
        /// The bits a header of `version` may have set.
        static func allBits(version: UInt64) -> UInt8 {
            version >= SegmentFormat.groupMetadataVersion ? 0b11_1111 : 0b1_1111
        }
    }

    /// What one storage slot holds, resolved from the model.
    enum SlotShape {
        case attribute(AttributeType)
        case toOne(destination: EntityDescription)
        case toMany(destination: EntityDescription)
    }

    /// The slot's shape and whether it is transient; nil when the model cannot resolve it.
    static func slot(_ slot: Int, of entity: EntityDescription, in model: ManagedObjectModel)
        -> (shape: SlotShape, isTransient: Bool, name: String)?
    {
        guard slot >= 0, slot < entity.slotKinds.count, slot < entity.slotNames.count else { return nil }
        switch entity.slotKinds[slot] {
        case .attribute(let index):
            guard index < entity.attributes.count else { return nil }
            let attribute = entity.attributes[index]
            return (.attribute(attribute.attributeType), attribute.isTransient, entity.slotNames[slot])
        case .relationship(let index):
            guard index < entity.relationships.count else { return nil }
            let relationship = entity.relationships[index]
            let destinationIndex = relationship.destinationIndex
            guard destinationIndex >= 0, destinationIndex < model.entities.count else { return nil }
            let destination = model.entities[destinationIndex]
            let shape: SlotShape = relationship.isToMany ? .toMany(destination: destination) : .toOne(destination: destination)
            return (shape, relationship.isTransient, entity.slotNames[slot])
        }
    }

    /// The value a decoded insert or delete holds in a transient slot (§7): `.null`, or an
    /// empty `.objects` for a to-many.
    static func transientPlaceholder(for shape: SlotShape) -> PropertyValue {
        if case .toMany = shape { return .objects([]) }
        return .null
    }

    /// Whether `value` can be stored in an attribute of `type` (§6.2): null, or a value of
    /// the type's kind.
    static func fits(_ value: PropertyValue, _ type: AttributeType) -> Bool {
        value.isNull || value.valueKind == type.valueKind
    }

    /// Why `value` cannot be stored in a slot of this shape, or nil when it fits (§6.2).
    static func mismatch(_ value: PropertyValue, _ shape: SlotShape) -> String? {
        switch (shape, value) {
        case (_, .null): return nil
        case (.attribute(let type), _):
            return fits(value, type) ? nil : "\(withArticle(ModelValueRules.kindName(value))) value does not fit the \(type.rawValue) attribute"
        case (.toOne(let destination), .object(let id)):
            return id.entity.isKind(of: destination) ? nil
                : "\(withArticle(id.entity.name)) object does not fit a to-one relationship to \(destination.name)"
        case (.toMany(let destination), .objects(let ids)):
            guard let wrong = ids.first(where: { !$0.entity.isKind(of: destination) }) else { return nil }
            return "\(withArticle(wrong.entity.name)) object does not fit a to-many relationship to \(destination.name)"
        case (.toOne, _):
            return "\(withArticle(ModelValueRules.kindName(value))) value does not fit a to-one relationship"
        case (.toMany, _):
            return "\(withArticle(ModelValueRules.kindName(value))) value does not fit a to-many relationship"
        }
    }
}
