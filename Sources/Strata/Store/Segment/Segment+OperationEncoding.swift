import Foundation

/// §4: one operation of a group — insert, delete, update, relate, splice — with its values
/// checked against their slots before a byte is written (docs/FORMAT.md §4, §17).
extension SegmentEncoder {
    /// Writes one operation; false when nothing persistent was left to write.
    func writeOperation(_ operation: ChangeOperation, to out: inout ByteWriter, group: UInt64) throws -> Bool {
        let entity = try checkedEntity(of: operation.objectID, group: group)
        let slots = slotTable.slots(of: entity)
        func slotInfo(_ slot: Int) throws -> (shape: SegmentFormat.SlotShape, isTransient: Bool, slot: Int) {
            guard slot >= 0, slot < slots.shapes.count, let shape = slots.shapes[slot] else {
                throw invalid("slot \(slot) is out of range for \(entity.name) (\(entity.slotCount) slots)",
                              group: group, entity: entity.name)
            }
            return (shape, slots.isTransient[slot], slot)
        }
        func checkFit(_ value: PropertyValue, _ info: (shape: SegmentFormat.SlotShape, isTransient: Bool, slot: Int)) throws {
            if let reason = SegmentFormat.mismatch(value, info.shape) {
                throw invalid("\(entity.name).\(entity.slotNames[info.slot]): \(reason)", group: group, entity: entity.name)
            }
        }
        switch operation {
        case .insert(let id, let values), .delete(let id, let values):
            guard values.count == entity.slotCount else {
                throw invalid("\(entity.name) has \(entity.slotCount) slots but the operation holds \(values.count) values",
                              group: group, entity: entity.name)
            }
            // Checked and counted first, then written straight to `out`: a side buffer per
            // operation cost an allocation and a copy for every record of a bulk save.
            var count = 0
            for (slot, value) in values.enumerated() {
                let info = try slotInfo(slot)
                if info.isTransient { continue }
                try checkFit(value, info)
                count += 1
            }
            if case .insert = operation { out.writeByte(SegmentFormat.OperationTag.insert.rawValue) }
            else { out.writeByte(SegmentFormat.OperationTag.delete.rawValue) }
            try writeObjectID(id, to: &out, group: group)
            out.writeVarint(UInt64(count))
            for (slot, value) in values.enumerated() where !slots.isTransient[slot] {
                out.writeVarint(UInt64(slot))
                try writeValue(value, to: &out, group: group)
            }
            return true
        case .update(let id, let changes):
            var count = 0
            for change in changes {
                let info = try slotInfo(change.slot)
                if info.isTransient { continue }
                try checkFit(change.old, info)
                try checkFit(change.new, info)
                count += 1
            }
            guard count > 0 else { return false }
            out.writeByte(SegmentFormat.OperationTag.update.rawValue)
            try writeObjectID(id, to: &out, group: group)
            out.writeVarint(UInt64(count))
            for change in changes where !slots.isTransient[change.slot] {
                out.writeVarint(UInt64(change.slot))
                try writeValue(change.old, to: &out, group: group)
                try writeValue(change.new, to: &out, group: group)
            }
            return true
        case .splice(let id, let slot, let edit):
            let info = try slotInfo(slot)
            if info.isTransient { return false }
            guard case .attribute(.string) = info.shape, entity.isText(slot: slot) else {
                throw invalid("\(entity.name).\(entity.slotNames[info.slot]) is not a text attribute", group: group, entity: entity.name)
            }
            guard version >= SegmentFormat.textVersion else {
                throw invalid("text edits need format version \(SegmentFormat.textVersion); version \(version) was asked for", group: group, entity: entity.name)
            }
            if let textPacker {
                if textPacker.repeatsTarget(id, slot: slot) {
                    out.writeByte(SegmentFormat.OperationTag.spliceAgain.rawValue)
                } else {
                    out.writeByte(SegmentFormat.OperationTag.splice.rawValue)
                    try writeObjectID(id, to: &out, group: group)
                    out.writeVarint(UInt64(slot))
                }
                try textPacker.write(edit, to: &out)
                return true
            }
            out.writeByte(SegmentFormat.OperationTag.splice.rawValue)
            try writeObjectID(id, to: &out, group: group)
            out.writeVarint(UInt64(slot))
            try TextCoding.write(edit, to: &out)
            return true
        case .relate(let id, let slot, let added, let removed):
            let info = try slotInfo(slot)
            if info.isTransient { return false }
            guard case .toMany(let destination) = info.shape else {
                throw invalid("\(entity.name).\(entity.slotNames[info.slot]) is not a to-many relationship", group: group, entity: entity.name)
            }
            for member in added + removed where !member.entity.isKind(of: destination) {
                throw invalid("\(entity.name).\(entity.slotNames[info.slot]): \(withArticle(member.entity.name)) object does not fit a to-many relationship to \(destination.name)",
                              group: group, entity: entity.name)
            }
            out.writeByte(SegmentFormat.OperationTag.relate.rawValue)
            try writeObjectID(id, to: &out, group: group)
            out.writeVarint(UInt64(slot))
            out.writeVarint(UInt64(added.count))
            for member in added { try writeObjectID(member, to: &out, group: group) }
            out.writeVarint(UInt64(removed.count))
            for member in removed { try writeObjectID(member, to: &out, group: group) }
            return true
        }
    }
}
