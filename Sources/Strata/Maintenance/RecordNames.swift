import Foundation

// How maintenance reports (verification, recovery) and the command-line tools name
// records and their properties: one spelling for both, so a problem `strata-log verify`
// reports reads the same as the `strata` output that shows the record.

extension ManagedObjectID {
    /// `Employee/p3`: the entity and key, for reports, tables and logs (the `strata`
    /// commands accept it wherever a URI is expected).
    package var shortReference: String {
        "\(entity.name)/\(isTemporaryID ? "t" : "p")\(primaryKey)"
    }
}

extension EntityDescription {
    /// The property name of a slot, or `#N` for a slot the entity does not have (a
    /// damaged or foreign segment names one).
    package func slotName(_ slot: Int) -> String {
        slot >= 0 && slot < slotNames.count ? slotNames[slot] : "#\(slot)"
    }

    /// Whether a slot holds a transient property (never stored).
    package func isTransientSlot(_ slot: Int) -> Bool {
        RowTable.isTransient(slot, of: self)
    }

    /// The stored (non-transient) relationships with their slots, in model order.
    package var storedRelationshipSlots: [(slot: Int, relationship: RelationshipDescription)] {
        slotNames.enumerated().compactMap { slot, name in
            guard let relationship = relationshipsByName[name], !relationship.isTransient else { return nil }
            return (slot, relationship)
        }
    }
}
