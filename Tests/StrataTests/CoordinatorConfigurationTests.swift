import Foundation
import Testing
@testable import Strata

/// A model with two configurations: `Catalog` (Product, Supplier) and `Orders` (Order);
/// Order.product crosses configurations, which a save must refuse.
private func configuredModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(
        entities: [
            EntityDescription("Product", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("supplier", to: "Supplier", inverse: "products"),
            ]),
            EntityDescription("Supplier", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("products", to: "Product", toMany: true, inverse: "supplier"),
            ]),
            EntityDescription("Order", attributes: [AttributeDescription("number", .integer64)], relationships: [
                RelationshipDescription("product", to: "Product"),
            ]),
        ],
        configurations: ["Catalog": ["Product", "Supplier"], "Orders": ["Order"]])
}

@Suite struct CoordinatorConfigurations {
    @Test func eachEntityIsSavedToTheStoreOfItsConfiguration() throws {
        let model = try configuredModel()
        let catalog = InMemoryStore(model: model, configurationName: "Catalog")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(catalog)
        let orders = InMemoryStore(model: model, configurationName: "Orders")
        try coordinator.addStore(orders)
        let context = ManagedObjectContext(coordinator: coordinator)
        let supplier = try context.insertObject(forEntityName: "Supplier")
        let product = try context.insertObject(forEntityName: "Product")
        try product.setObject(supplier, forKey: "supplier")
        let order = try context.insertObject(forEntityName: "Order")
        try order.setValue(.integer(7), forKey: "number")
        try context.save()

        #expect(product.objectID.storeIdentifier == catalog.identifier)
        #expect(order.objectID.storeIdentifier == orders.identifier)
        #expect(try catalog.objectIDs(for: model.entity(named: "Product"), includingSubentities: true) == [product.objectID])
        #expect(try orders.objectIDs(for: model.entity(named: "Product"), includingSubentities: true).isEmpty)
        #expect(try orders.objectIDs(for: model.entity(named: "Order"), includingSubentities: true) == [order.objectID])
        let resolved = try coordinator.managedObjectID(forURIRepresentation: order.objectID.uriRepresentation())
        #expect(resolved == order.objectID)
        let fresh = ManagedObjectContext(coordinator: coordinator)
        #expect(try fresh.fetch(FetchRequest(entityName: "Order")).map(\.objectID) == [order.objectID])
    }

    @Test func aRelationshipAcrossStoresIsRefusedAndNothingIsSaved() throws {
        let model = try configuredModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        let catalog = InMemoryStore(model: model, configurationName: "Catalog")
        let orders = InMemoryStore(model: model, configurationName: "Orders")
        try coordinator.addStore(catalog)
        try coordinator.addStore(orders)
        let context = ManagedObjectContext(coordinator: coordinator)
        let product = try context.insertObject(forEntityName: "Product")
        let order = try context.insertObject(forEntityName: "Order")
        try order.setObject(product, forKey: "product")
        #expect {
            try context.save()
        } throws: { error in
            (error as? StrataError)?.code == .crossStoreRelationship
                && "\(error)".contains("relationships must not cross stores")
        }
        #expect(context.hasChanges)
        #expect(try catalog.objectIDs(for: model.entity(named: "Product"), includingSubentities: true).isEmpty)
        #expect(try orders.objectIDs(for: model.entity(named: "Order"), includingSubentities: true).isEmpty)

        // Unlinking makes the same changes savable.
        try order.setObject(nil, forKey: "product")
        try context.save()
        #expect(try orders.objectIDs(for: model.entity(named: "Order"), includingSubentities: true).count == 1)
    }

    @Test func anEntityServedByTwoStoresOrByNoneIsAnError() throws {
        let model = try configuredModel()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(InMemoryStore(model: model, configurationName: "Catalog"))
        #expect(throws: StrataError.self) { try coordinator.addStore(InMemoryStore(model: model, configurationName: "Catalog")) }
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try context.insertObject(forEntityName: "Order")
        #expect {
            try context.save()
        } throws: { error in (error as? StrataError)?.code == .noStore }
    }
}
