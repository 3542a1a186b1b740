import Foundation
import Strata
import StrataTestSupport
import Testing

/// A document's fetch reruns in memory the records its uncompacted overlay can change the
/// answer for: as many relationship hops from the overlay as the predicate's farthest key
/// path takes (docs/ARCHITECTURE.md, "Reads: snapshot ⊕ overlay"). The bound was a count of
/// the dots in the predicate's text, capped at four: a literal `1.5` counted as a hop, and a
/// five-hop key path missed a change five hops away.
@Suite struct FetchOverlayHops {
    @Test(arguments: [
        ("score > 1.5", 0),
        ("name == 'a.b.c.d'", 0),
        ("next.score == 2", 1),
        ("next.next.next.next.next.score == 5", 5),
        ("next.score == 1 OR next.next.next.score == 3", 3),
        ("SUBQUERY(children, $c, $c.score > 1).@count > 0", 1),
        ("SUBQUERY(children, $c, $c.next.next.score > 1).@count > 0", 3),
        ("children.@count > 2", 0),
        ("children.@sum.score > 2", 1),
        ("ANY children.next.score == 1", 2),
    ])
    func theBoundComesFromTheKeyPathsNotTheText(format: String, hops: Int) throws {
        #expect(try FetchPredicate(format: format).relationshipHops == hops, "\(format)")
    }

    /// A chain of six nodes; the last one's value changes in a segment not yet compacted.
    /// The first node's five-hop key path reads it, so the fetch must see the change.
    @Test func aChangeFiveHopsAwayInTheOverlayChangesTheAnswer() throws {
        let stack = try DocumentStack(model: try Self.model(), configuration: manualCompaction())
        var nodes: [ManagedObject] = []
        for index in 0..<6 {
            let node = try stack.context.insertObject(forEntityName: "Node")
            try node.setValue(.string("n\(index)"), forKey: "name")
            try node.setValue(.integer(Int64(index)), forKey: "score")
            if let previous = nodes.last { try previous.setValue(.object(node.objectID), forKey: "next") }
            nodes.append(node)
        }
        try stack.context.save()
        try stack.store.compact()
        let request = FetchRequest(entityName: "Node")
        request.predicate = try FetchPredicate(format: "next.next.next.next.next.score == 50")
        #expect(try stack.context.fetch(request).isEmpty)

        // Saved, not compacted: the snapshot still holds 5, the overlay 50.
        try nodes[5].setValue(.integer(50), forKey: "score")
        try stack.context.save()
        #expect(try stack.store.logPosition.compactedThrough < stack.store.logPosition.last)
        // A second context, so the answer comes from the store, not this context's objects.
        let reader = ManagedObjectContext(coordinator: stack.coordinator)
        let names = try reader.fetch(request).map { try $0.value(forKey: "name") }
        #expect(names == [.string("n0")])
        let count = try reader.count(for: request)
        #expect(count == 1)
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Node", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("score", .integer64),
            ], relationships: [
                RelationshipDescription("next", to: "Node", inverse: "previous"),
                RelationshipDescription("previous", to: "Node", inverse: "next"),
                RelationshipDescription("children", to: "Node", toMany: true, inverse: "parent"),
                RelationshipDescription("parent", to: "Node", inverse: "children"),
            ]),
        ])
    }
}
