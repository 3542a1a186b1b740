import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// A class whose entity has another name than the class.
@Entity(name: "Person") final class Human: ManagedObject {
    var name: String
}

/// A declared class a JSON model's entity of another name is registered with.
@Entity final class Worker: ManagedObject {
    var name: String
}

@Suite("Entity names of declared classes")
struct EntityNameTests {
    @Test func entityNameArgumentNamesTheEntityAndTypedRequestsFetchIt() throws {
        #expect(Human.entityName == "Person")
        let model = try ManagedObjectModel(types: [Human.self])
        #expect(model.entitiesByName.keys.sorted() == ["Person"])
        #expect(FetchRequest<Human>().entityName == "Person")
        let stack = try DocumentStack(model: model)
        let ada = try stack.context.insert(Human.self)
        ada.name = "Ada"
        try stack.context.save()
        let reader = stack.newContext()
        let found = try reader.fetch(FetchRequest<Human>(predicate: #Predicate { $0.name == "Ada" }))
        #expect(found.map(\.name) == ["Ada"])
    }

    @Test func aTypedRequestFindsTheEntityTheModelRegistersTheClassFor() throws {
        let model = try ManagedObjectModel(jsonData: Data("""
            {"format": "strata-model", "formatVersion": 1, "entities": [
              {"name": "Staffer", "attributes": [{"name": "name", "type": "string", "optional": false}]}
            ]}
            """.utf8))
        try model.register(Worker.self, forEntityName: "Staffer")
        #expect(Worker.entityName == "Worker")
        let stack = try DocumentStack(model: model)
        for name in ["Grace", "Ada"] {
            try stack.context.insert(Worker.self).name = name
        }
        try stack.context.save()
        let reader = stack.newContext()
        let sorted = try reader.fetch(FetchRequest<Worker>(sortBy: [SortDescriptor(\.name)]))
        #expect(sorted.map(\.name) == ["Ada", "Grace"])
        #expect(try reader.count(for: FetchRequest<Worker>(predicate: #Predicate { $0.name == "Ada" })) == 1)
        let list = FetchedResultsController(fetchRequest: FetchRequest<Worker>(sortBy: [SortDescriptor(\.name, order: .reverse)]),
                                            managedObjectContext: reader)
        try list.performFetch()
        #expect(list.fetchedObjects?.map(\.name) == ["Grace", "Ada"])
        // A request that names an entity keeps it: a wrong name is an error, not a guess.
        let error = try #require(throws: StrataError.self) { try reader.fetch(FetchRequest<Worker>(entityName: "Workers")) }
        #expect(error.code == .unknownKey && error.message.contains("Workers"))
    }
}
