import Foundation

/// How an insert run of format v2 writes the values of one persistent slot (docs/FORMAT.md
/// §13.3–§13.4): the slot fixes the encoding, so no value carries a tag.
enum SegmentColumnKind {
    case integer, double, date, decimal, string, boolean, data, uuid, uri
    /// Keys of the destination; the entity index precedes each key only when the
    /// destination has sub-entities (otherwise the destination is the only possible one).
    case toOne(destination: EntityDescription, writesEntity: Bool)
    /// A count and object IDs, as the `objects` value (§6) without its tag.
    case toMany(destination: EntityDescription)

    /// The column of a slot of this shape.
    init(_ shape: SegmentFormat.SlotShape) {
        switch shape {
        case .attribute(let type):
            switch type.valueKind {
            case .integer: self = .integer
            case .double: self = .double
            case .date: self = .date
            case .decimal: self = .decimal
            case .string: self = .string
            case .boolean: self = .boolean
            case .data: self = .data
            case .uuid: self = .uuid
            case .uri: self = .uri
            }
        case .toOne(let destination): self = .toOne(destination: destination, writesEntity: !destination.subentities.isEmpty)
        case .toMany(let destination): self = .toMany(destination: destination)
        }
    }

    /// Whether the column may use delta coding (§13.4): integers and to-one keys.
    var allowsDelta: Bool {
        switch self {
        case .integer, .toOne: return true
        default: return false
        }
    }

    /// A name for error messages.
    var name: String {
        switch self {
        case .integer: return "integer"
        case .double: return "double"
        case .date: return "date"
        case .decimal: return "decimal"
        case .string: return "string"
        case .boolean: return "boolean"
        case .data: return "data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .toOne: return "to-one"
        case .toMany: return "to-many"
        }
    }
}

/// The column header byte of an insert run (§13.3).
enum SegmentColumnHeader {
    /// Bits 0–1: which rows hold a value.
    static let presenceMask: UInt8 = 0x03
    /// Every row holds a value; no bitmap.
    static let everyRow: UInt8 = 0
    /// Every row is null; nothing follows.
    static let noRow: UInt8 = 1
    /// A bitmap of ⌈rows / 8⌉ bytes follows: bit `row % 8` of byte `row / 8` is set when
    /// the row holds a value.
    static let bitmap: UInt8 = 2
    /// Bit 2: integers and to-one keys are differences from the previous value.
    static let delta: UInt8 = 0x04
    /// Bits that no version 2 header sets.
    static let unknownBits: UInt8 = 0xF8

    /// The size of a varint (§1.1) holding `value`.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// The zigzag mapping (§1.2).
    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
