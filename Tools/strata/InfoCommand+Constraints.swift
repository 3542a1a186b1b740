import Strata

extension InfoCommand {
    /// `Unique    Person(email) · Slot(shelf, position)`: every uniqueness constraint, by
    /// the entity that declares it (sub-entities inherit it); nil when there are none.
    static func uniquenessLine(_ entities: [EntityDescription]) -> String? {
        let constraints = entities.flatMap { entity in
            entity.uniquenessConstraints.map { "\(entity.name)(\($0.joined(separator: ", ")))" }
        }
        return constraints.isEmpty ? nil : "Unique    " + constraints.joined(separator: " · ")
    }
}
