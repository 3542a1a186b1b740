import Foundation

/// How a row of one snapshot table is read: the columns selected after `_pk` and the
/// entity, and for each entity of the table's hierarchy which column fills which slot and
/// which slots are to-manys (read afterwards, a statement per relationship for a whole
/// batch: ``SnapshotRowReader``).
///
/// Built once per table when the schema is (docs/ARCHITECTURE.md, "Reads: one pass from
/// SQL to objects"), so that a read builds no SQL text and looks nothing up by name.
struct SnapshotRowLayout {
    /// One slot filled from the selected columns.
    enum SlotColumn {
        /// An attribute: its slot, its column's position among ``columns``, its type, and
        /// the column's name (for the error a value that does not fit raises).
        case attribute(slot: Int, column: Int, type: AttributeType, name: String)
        /// A to-one: its slot, the key column's position, the destination entity column's
        /// position when the destination hierarchy has several entities, and the
        /// destination's root (every key's entity when there is no entity column).
        case toOne(slot: Int, column: Int, entityColumn: Int?, root: EntityDescription)

        /// The slot it fills.
        var slot: Int {
            switch self {
            case .attribute(let slot, _, _, _), .toOne(let slot, _, _, _): return slot
            }
        }
    }

    /// How the rows of one entity are decoded.
    struct EntityDecoder {
        /// The slots filled from the columns, attributes first then to-ones (the order the
        /// single-record read has always decoded them in).
        let columns: [SlotColumn]
        /// The persistent to-many slots, read by ``SnapshotRowReader/fillToManys(_:of:)``.
        let toManySlots: [Int]
        /// A row of the entity before any column is read: every slot null, transient
        /// to-manys empty. Each read row starts as a copy of it.
        let template: [PropertyValue]
    }

    /// The table's quoted data columns in table order: what a read selects after
    /// `_pk` and the entity.
    let columns: [String]
    /// By entity index, for every entity of the table's hierarchy.
    let decoders: [Int: EntityDecoder]

    init(table: SnapshotSchema.Table, schema: SnapshotSchema) {
        var position: [String: Int] = [:]
        for (index, column) in table.columns.enumerated() { position[column.name] = index }
        columns = table.columns.map { SnapshotSchema.quote($0.name) }
        var decoders: [Int: EntityDecoder] = [:]
        for entity in table.root.selfAndDescendants {
            let storage = schema.storage(of: entity)
            var slotColumns: [SlotColumn] = []
            var toManySlots: [Int] = []
            for (slot, slotStorage) in storage.enumerated() {
                guard case .column(let name) = slotStorage, case .attribute(let index) = entity.slotKinds[slot],
                      let column = position[name] else { continue }
                slotColumns.append(.attribute(slot: slot, column: column, type: entity.attributes[index].attributeType, name: name))
            }
            for (slot, slotStorage) in storage.enumerated() {
                switch slotStorage {
                case .toOne(let name, let entityColumn, let destination):
                    guard let column = position[name] else { continue }
                    slotColumns.append(.toOne(slot: slot, column: column, entityColumn: entityColumn.flatMap { position[$0] },
                                              root: destination.rootEntity))
                case .inverseForeignKey, .join:
                    toManySlots.append(slot)
                case .transient, .column:
                    continue
                }
            }
            decoders[entity.index] = EntityDecoder(
                columns: slotColumns, toManySlots: toManySlots,
                template: RowTable.persistent(Array(repeating: .null, count: entity.slotCount), of: entity))
        }
        self.decoders = decoders
    }

    /// The select list after `_pk` and the entity, each column prefixed with `alias.`.
    func selectList(alias: String?) -> String {
        guard let alias else { return columns.joined(separator: ", ") }
        return columns.map { "\(alias).\($0)" }.joined(separator: ", ")
    }
}
