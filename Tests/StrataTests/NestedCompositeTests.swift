import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Nested composite attributes (a composite among a composite's elements, Core Data on iOS
/// 17+): the Xcode fixture Fixtures/composites/Shipping.xml (Site.address: city, zip and
/// geo {lat, lon}), the JSON model, values, key paths in memory and in SQL, undo,
/// compaction and reopening.
@Suite struct NestedComposites {
    static func shipping() throws -> ManagedObjectModel {
        let url = try #require(Bundle.module.url(forResource: "Shipping", withExtension: "xml", subdirectory: "Fixtures/composites"))
        return try ManagedObjectModel(xcdatamodelAt: url)
    }

    static func site(_ context: ManagedObjectContext, _ name: String, city: String, lat: Double, lon: Double) throws -> ManagedObject {
        let site = try context.insertObject(forEntityName: "Site")
        try site.setValue(.string(name), forKey: "name")
        try site.setCompositeValue(["city": .string(city), "geo.lat": .double(lat), "geo.lon": .double(lon)], forKey: "address")
        return site
    }

    static func names(_ context: ManagedObjectContext, _ predicate: String, sortedBy key: String, ascending: Bool = true) throws -> [String] {
        let request = FetchRequest(entityName: "Site", predicate: try FetchPredicate(format: predicate),
                                   sortDescriptors: [FetchSortDescriptor(key, ascending: ascending)])
        return try context.fetch(request).map { try $0.string("name") ?? "?" }
    }

    /// Oslo (59.9, 10.7), Rome (41.9, 12.5), Tromsø (69.6, 18.9), and Nowhere without an address.
    static func fill(_ context: ManagedObjectContext) throws {
        _ = try site(context, "Oslo", city: "Oslo", lat: 59.9, lon: 10.7)
        _ = try site(context, "Rome", city: "Rome", lat: 41.9, lon: 12.5)
        _ = try site(context, "Tromsø", city: "Tromsø", lat: 69.6, lon: 18.9)
        let nowhere = try context.insertObject(forEntityName: "Site")
        try nowhere.setValue("Nowhere", forKey: "name")
        try nowhere.setCompositeValue(nil, forKey: "address")
    }

    @Test func theXcodeModelLoadsANestedCompositeStoredAsFlattenedElements() throws {
        let model = try Self.shipping()
        let site = try model.entity(named: "Site")
        let address = try #require(site.composite(named: "address"))
        #expect(address.elements.map(\.name) == ["city", "zip"])
        #expect(address.composites.map(\.name) == ["geo"])
        #expect(address.composites.first?.typeName == "Geo")
        #expect(address.storedElements.map(\.name) == ["address.city", "address.zip", "address.geo.lat", "address.geo.lon"])
        #expect(site.attributesByName["address.geo.lat"]?.compositeName == "address")
        #expect(site.attributesByName["address.geo.lat"]?.defaultValue == .double(0))
        #expect(site.composite(named: "address.geo")?.storedElements.map(\.name) == ["address.geo.lat", "address.geo.lon"])
        #expect(site.joiningCompositeKeys(["address", "geo", "lat"]) == ["address.geo.lat"])
        #expect(site.joiningCompositeKeys(["address", "geo"]) == ["address.geo"])

        // The JSON model writes the nested composite among the elements and reads it back.
        let json = model.jsonRepresentation()
        let reread = try ManagedObjectModel(jsonData: json)
        #expect(try reread.entity(named: "Site").composite(named: "address") == address)
        #expect(reread.versionHash == model.versionHash)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"geo\"") && text.contains("\"lat\""), "\(text)")
    }

    @Test func badNestedDeclarationsAreClearModelErrors() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("Loop.xml")
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="A"><attribute name="home" attributeType="Composite" composite="Address"/></entity>
            <composite name="Address"><attribute name="geo" attributeType="Composite" composite="Geo"/></composite>
            <composite name="Geo"><attribute name="back" attributeType="Composite" composite="Address"/></composite>
            </model>
            """.utf8).write(to: url)
        let loop = try #require(throws: StrataError.self) { try ManagedObjectModel(xcdatamodelAt: url) }
        #expect(loop.code == .modelFile)
        #expect(loop.message.contains("composite 'Address' contains itself (Address → Geo → Address)"), "\(loop.message)")

        let clash = try #require(throws: StrataError.self) {
            try ManagedObjectModel(entities: [EntityDescription("P", composites: [
                CompositeAttributeDescription("address", elements: [AttributeDescription("geo", .string)], composites: [
                    CompositeAttributeDescription("geo", elements: []),
                ]),
            ])])
        }
        let reasons = clash.problems.map(\.reason)
        #expect(reasons.contains("element 'geo' of composite attribute 'address' is declared twice"), "\(reasons)")
        #expect(reasons.contains("composite attribute 'address.geo' has no elements"), "\(reasons)")
    }

    @Test func aNestedCompositeIsReadAndWrittenAsAWholeByPathAndByElement() throws {
        let model = try Self.shipping()
        let stack = Stack(model: model)
        let oslo = try Self.site(stack.context, "Oslo", city: "Oslo", lat: 59.9, lon: 10.7)
        #expect(try oslo.compositeValue(forKey: "address") == ["city": "Oslo", "zip": .null, "geo.lat": .double(59.9), "geo.lon": .double(10.7)])
        #expect(try oslo.compositeValue(forKey: "address.geo") == ["lat": .double(59.9), "lon": .double(10.7)])
        #expect(try oslo.value(forKeyPath: "address.geo.lat") == .single(.double(59.9)))
        try oslo.setCompositeValue(["lat": .double(60)], forKey: "address.geo")
        #expect(try oslo.value(forKey: "address.geo.lon") == .null, "the nested composite is replaced as a whole")
        #expect(try oslo.value(forKey: "address.city") == "Oslo", "the outer elements stay")
        let geo = CompositeKey("address").composite("geo")
        let lat = geo.element("lat", as: Double?.self)
        #expect(oslo[lat] == 60)
        oslo[lat] = 59.9
        #expect(try oslo.compositeValue(for: geo)?["lat"] == .double(59.9))
        try oslo.setCompositeValue(nil, forKey: "address.geo")
        #expect(try oslo.compositeValue(forKey: "address.geo") == nil)

        let unknown = try #require(throws: StrataError.self) { try oslo.setCompositeValue(["geo.alt": .double(1)], forKey: "address") }
        #expect(unknown.code == .unknownKey)
        #expect(unknown.message.contains("no element 'geo.alt' (elements: city, zip, geo.lat, geo.lon)"), "\(unknown.message)")
        let mistyped = try #require(throws: StrataError.self) { try oslo.setCompositeValue(["city": "Oslo", "geo.lat": "north"], forKey: "address") }
        #expect(mistyped.code == .typeMismatch)
        #expect(mistyped.context.key == "address.geo.lat")
    }

    @Test func fetchAndSortThroughTheNestedCompositeInMemory() throws {
        let stack = Stack(model: try Self.shipping())
        try Self.fill(stack.context)
        #expect(try Self.names(stack.context, "address.geo.lat > 50", sortedBy: "address.geo.lon") == ["Oslo", "Tromsø"])
        try stack.context.save()
        let fresh = stack.newContext()
        #expect(try Self.names(fresh, "address.geo.lat > 50", sortedBy: "address.geo.lon", ascending: false) == ["Tromsø", "Oslo"])
        #expect(try Self.names(fresh, "address.geo == nil", sortedBy: "name") == ["Nowhere"])
        #expect(try Self.names(fresh, "address.geo != nil AND address.city BEGINSWITH 'R'", sortedBy: "name") == ["Rome"])
        let bad = try #require(throws: StrataError.self) { try Self.names(fresh, "address.geo.alt > 1", sortedBy: "name") }
        #expect(bad.message.contains("alt"), "\(bad.message)")
    }

    @Test func aDocumentStoresNestedElementsAsColumnsFetchesThemInSQLAndUndoes() throws {
        let model = try Self.shipping()
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try DocumentStack.create(url, model: model, configuration: manualCompaction())
            try Self.fill(stack.context)
            try stack.context.save()
            #expect(try Self.names(stack.newContext(), "address.geo.lat > 50", sortedBy: "address.geo.lon") == ["Oslo", "Tromsø"])
            // Undo of a change to one nested element.
            let rome = try #require(try stack.context.fetch(FetchRequest(entityName: "Site", predicate: try FetchPredicate(format: "name == 'Rome'"))).first)
            try rome.setCompositeValue(["lat": .double(55.7), "lon": .double(12.6)], forKey: "address.geo")
            try stack.context.save()
            #expect(try Self.names(stack.newContext(), "address.geo.lat > 50", sortedBy: "name") == ["Oslo", "Rome", "Tromsø"])
            try stack.undo.undo()
            try stack.context.save()
            #expect(try rome.compositeValue(forKey: "address.geo") == ["lat": .double(41.9), "lon": .double(12.5)])
            try stack.store.compact()
            try stack.store.close()
        }
        let stack = try DocumentStack.open(url, model: model, configuration: manualCompaction())
        let columns = try SnapshotSchema(model: model).table(for: try model.entity(named: "Site")).columns.map(\.name)
        #expect(columns.contains("address.geo.lat") && columns.contains("address.geo.lon"), "\(columns)")
        #expect(try Self.names(stack.context, "address.geo.lat > 50", sortedBy: "address.geo.lat", ascending: false) == ["Tromsø", "Oslo"])
        #expect(try Self.names(stack.context, "address.geo == nil", sortedBy: "name") == ["Nowhere"])

        let translator = SQLPredicateTranslator(schema: try SnapshotSchema(model: model), storeTag: 1)
        let plan = try translator.plan(for: StoreFetchRequest(
            entity: try model.entity(named: "Site"), predicate: try FetchPredicate(format: "address.geo.lat > 50 AND address.geo != nil"),
            sortDescriptors: [FetchSortDescriptor("address.geo.lon")], fetchLimit: 0, fetchOffset: 0))
        #expect(plan.residual == nil)
        #expect(plan.select.sql.contains("\"address.geo.lat\"") && plan.select.sql.contains("ORDER BY t.\"address.geo.lon\" ASC"), "\(plan.select.sql)")
        try stack.store.close()
    }
}
