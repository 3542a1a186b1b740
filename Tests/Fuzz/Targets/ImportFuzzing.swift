import Foundation
import Strata
import StrataToolSupport

/// `strata import`'s readers and inserter, into the employees example model in memory
/// (with a department and an employee already there to refer to), then a save.
enum ImportFuzzing {
    /// An in-memory store as `strata import` sees a document.
    private struct Destination: ImportDestination {
        let context: ManagedObjectContext

        func entity(named name: String) throws -> EntityDescription {
            guard let entity = context.model.entitiesByName[name] else {
                throw StrataError(.unknownKey, "There is no entity '\(name)'.", context: .init { $0.entity = name })
            }
            return entity
        }

        func objectID(_ reference: String) throws -> ManagedObjectID {
            let text = reference.hasPrefix("x-strata:") ? reference
                : "x-strata://\(ImportFuzzing.storeIdentifier)/\(reference)"
            guard let uri = URL(string: text) else {
                throw StrataError(.invalidObjectID, "'\(reference)' is not an object URI.", context: .init { $0.object = reference })
            }
            return try context.existingObject(with: try context.coordinator.managedObjectID(forURIRepresentation: uri)).objectID
        }
    }

    static let model = ManagedObjectModel.employeesExample()
    static let storeIdentifier = "FUZZ"

    static func run(_ bytes: [UInt8], csv: Bool) throws {
        let rows = csv ? try ImportRows.csv(Data(bytes)) : try ImportRows.json(Data(bytes))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model, identifier: storeIdentifier))
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try EmployeesFixture.populate(context)
        try context.save()
        // Like `--entity Employee` unless every row names its entity.
        let defaultEntity = rows.allSatisfy { $0.entity != nil } ? nil : "Employee"
        _ = try ImportRows.insert(rows, defaultEntity: defaultEntity, into: Destination(context: context))
        try context.save()
    }
}
