import Foundation
import Testing
@testable import Strata

/// Fetch indexes: read from Xcode and JSON models, validated, created as SQLite indexes in
/// new and existing documents, and used by the SQL the fetch translator writes.
@Suite struct FetchIndexes {
    static let xcodeModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Place" representedClassName="Place" syncable="YES" codeGenerationType="class">
                <attribute name="name" attributeType="String"/>
                <attribute name="category" optional="YES" attributeType="String"/>
                <attribute name="rank" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="code" optional="YES" attributeType="String" indexed="YES"/>
                <fetchIndex name="byName">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byCategoryAndRank">
                    <fetchIndexElement property="category" type="Binary" order="ascending"/>
                    <fetchIndexElement property="rank" type="Binary" order="descending"/>
                </fetchIndex>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="RTree"/>
                    <fetchIndexElement property="longitude" type="RTree"/>
                </fetchIndex>
            </entity>
        </model>
        """

    static func model(_ xml: String = xcodeModel) throws -> ManagedObjectModel {
        try ManagedObjectModel(xcodeModelContents: Data(xml.utf8), file: "Places.xcdatamodel/contents")
    }

    @Test func theXcodeElementsBecomeFetchIndexDescriptions() throws {
        let place = try #require(try Self.model().entitiesByName["Place"])
        #expect(place.fetchIndexes == [
            FetchIndexDescription("byName", elements: [.init("name")]),
            FetchIndexDescription("byCategoryAndRank", elements: [.init("category"), .init("rank", ascending: false)]),
            FetchIndexDescription("byLocation", elements: [.init("latitude", kind: .rTree), .init("longitude", kind: .rTree)]),
        ])
        #expect(place.declaredIndexes.map(\.name) == ["byName", "byCategoryAndRank", "byLocation", "code_index"])
    }

    @Test func theJSONModelRoundTripsIndexesAndTheHashIgnoresThem() throws {
        let model = try Self.model()
        let json = String(decoding: model.jsonRepresentation(), as: UTF8.self)
        #expect(json.contains("\"fetchIndexes\""))
        #expect(json.contains("descending"))
        let again = try ManagedObjectModel(jsonData: model.jsonRepresentation())
        #expect(again.entitiesByName["Place"]?.fetchIndexes == model.entitiesByName["Place"]?.fetchIndexes)
        let without = try Self.model(Self.xcodeModel.replacingOccurrences(
            of: #"<fetchIndex name="byName">\s*<fetchIndexElement[^>]*>\s*</fetchIndex>"#, with: "", options: .regularExpression))
        #expect(without.entitiesByName["Place"]?.fetchIndexes.count == 2)
        #expect(without.versionHash == model.versionHash)
    }

    @Test func anUnknownPropertyNamesTheEntityIndexAndProperty() throws {
        let xml = Self.xcodeModel.replacingOccurrences(of: #"property="rank" type="Binary""#, with: #"property="ranking" type="Binary""#)
        let error = try #require(throws: StrataError.self) { try Self.model(xml) }
        #expect(error.code == .invalidModel)
        let problem = try #require(error.problems.first)
        #expect(problem.entityName == "Place")
        #expect(problem.key == "ranking")
        #expect(problem.reason.contains("fetch index 'byCategoryAndRank'"))
        #expect(problem.reason.contains("unknown property"))
    }

    @Test func badIndexesAreRefusedWithTheirReason() throws {
        let cases: [(String, String)] = [
            (#"property="latitude" type="RTree""#, #"property="name" type="RTree""#),
            (#"property="longitude" type="RTree""#, #"property="longitude" type="Binary""#),
            (#"<fetchIndex name="byName">"#, #"<fetchIndex name="ByLocation">"#),
            (#"<fetchIndex name="byName">"#, #"<fetchIndex name="byLocation_node">"#),
        ]
        let reasons = ["must be a number or a date", "cannot be mixed", "used twice", "R-tree's SQLite tables"]
        for ((old, new), reason) in zip(cases, reasons) {
            let error = try #require(throws: StrataError.self) { try Self.model(Self.xcodeModel.replacingOccurrences(of: old, with: new)) }
            #expect(error.code == .invalidModel)
            #expect(error.problems.contains { $0.reason.contains(reason) }, "\(error.problems)")
        }
        let badType = try #require(throws: StrataError.self) {
            try Self.model(Self.xcodeModel.replacingOccurrences(of: #"property="name" type="Binary""#, with: #"property="name" type="Hash""#))
        }
        #expect(badType.code == .modelFile)
        #expect(badType.message.contains("index type 'Hash'"))
        #expect(badType.message.contains("entity 'Place'"))
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "A", "attributes": [{"name": "x", "type": "string"}], "fetchIndexes": [{"name": "i", "elements": [{"property": "x", "order": "up"}]}]}]}"#
        let jsonError = try #require(throws: StrataError.self) { try ManagedObjectModel(jsonData: Data(json.utf8)) }
        #expect(jsonError.message.contains("unknown index order 'up'"), "\(jsonError.message)")
    }

    /// A document of the model with a few places; returns its file.
    static func document(in directory: TemporaryDirectory, model: ManagedObjectModel) throws -> URL {
        let url = directory.url.appendingPathComponent("places.strata")
        let store = try DocumentStore(creatingAt: url, model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        for number in 0..<40 {
            let place = try context.insertObject(forEntityName: "Place")
            try place.setValue(.string("place \(number)"), forKey: "name")
            try place.setValue(.string(["north", "south"][number % 2]), forKey: "category")
            try place.setValue(.integer(Int64(number)), forKey: "rank")
            if number % 4 != 0 {
                try place.setValue(.double(Double(number)), forKey: "latitude")
                try place.setValue(.double(Double(-number)), forKey: "longitude")
            }
        }
        try context.save()
        _ = try store.compact()
        try store.close()
        return url
    }

    static func queryPlan(_ url: URL, model: ManagedObjectModel, _ format: String, sort: [FetchSortDescriptor] = []) throws -> String {
        let schema = try SnapshotSchema(model: model)
        let translator = SQLPredicateTranslator(schema: schema, storeTag: 1)
        let request = StoreFetchRequest(entity: model.entitiesByName["Place"]!, predicate: try FetchPredicate(format: format),
                                        sortDescriptors: sort)
        let query = try translator.plan(for: request).select
        let connection = try SQLiteConnection(path: url.path, flags: [.readOnly])
        defer { connection.close() }
        return try connection.prepare("EXPLAIN QUERY PLAN " + query.sql).rows(query.bindings)
            .compactMap { row in if case .text(let detail)? = row.last { detail } else { nil } }
            .joined(separator: "\n")
    }

    @Test func fetchesUseTheIndexesForPredicatesAndSorts() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let url = try Self.document(in: directory, model: model)
        let byName = try Self.queryPlan(url, model: model, "name == 'place 3'")
        #expect(byName.contains("INDEX Place.byName"), "\(byName)")
        let byCategory = try Self.queryPlan(url, model: model, "category == 'north'",
                                            sort: [FetchSortDescriptor("rank", ascending: false)])
        #expect(byCategory.contains("INDEX Place.byCategoryAndRank"), "\(byCategory)")
        #expect(!byCategory.contains("TEMP B-TREE"), "\(byCategory)")
        let sorted = try Self.queryPlan(url, model: model, "TRUEPREDICATE",
                                        sort: [FetchSortDescriptor("category"), FetchSortDescriptor("rank", ascending: false)])
        #expect(sorted.contains("Place.byCategoryAndRank"), "\(sorted)")
        #expect(!sorted.contains("TEMP B-TREE FOR ORDER BY"), "\(sorted)")
        let code = try Self.queryPlan(url, model: model, "code == 'x'")
        #expect(code.contains("INDEX Place_code_index"), "\(code)")
    }

    @Test func theRTreeHoldsEachRowWithValuesAndFollowsChanges() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let url = try Self.document(in: directory, model: model)
        let inBox = "SELECT id FROM \"Place.byLocation\" WHERE min0 >= 10 AND max0 <= 20 AND min1 >= -20 AND max1 <= -10 ORDER BY id"
        let expected = try sqlRows(url, "SELECT _pk FROM Place WHERE latitude BETWEEN 10 AND 20 AND longitude BETWEEN -20 AND -10 ORDER BY _pk")
        #expect(!expected.isEmpty)
        #expect(try sqlRows(url, inBox) == expected)
        #expect(try sqlRows(url, "SELECT count(*) FROM \"Place.byLocation\"") == [[.integer(30)]])
        // Later saves (an update to NULL, a delete) reach the R-tree through compaction.
        let store = try DocumentStore(openingAt: url, model: model)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let places = try context.fetch(FetchRequest(entityName: "Place", predicate: try FetchPredicate(format: "latitude != nil")))
        try places[0].setValue(.null, forKey: "latitude")
        context.delete(places[1])
        try context.save()
        _ = try store.compact()
        try store.close()
        #expect(try sqlRows(url, "SELECT count(*) FROM \"Place.byLocation\"") == [[.integer(28)]])
        #expect(try integrityCheck(url) == "ok")
    }

    @Test func anExistingDocumentGainsTheIndexesItsModelAdds() throws {
        let directory = try TemporaryDirectory()
        let withIndexes = try Self.model()
        let plain = try Self.model(Self.xcodeModel.replacingOccurrences(
            of: #"<fetchIndex name="[a-zA-Z]+">(\s*<fetchIndexElement[^>]*>)*\s*</fetchIndex>"#, with: "", options: .regularExpression))
        #expect(plain.entitiesByName["Place"]?.fetchIndexes.isEmpty == true)
        let url = try Self.document(in: directory, model: plain)
        let names = "SELECT name FROM sqlite_schema WHERE name IN ('Place.byName', 'Place.byCategoryAndRank', 'Place.byLocation') ORDER BY name"
        #expect(try sqlRows(url, names).isEmpty)
        let store = try DocumentStore(openingAt: url, model: withIndexes)
        try store.close()
        #expect(try sqlRows(url, names) == [[.text("Place.byCategoryAndRank")], [.text("Place.byLocation")], [.text("Place.byName")]])
        #expect(try sqlRows(url, "SELECT count(*) FROM \"Place.byLocation\"") == [[.integer(30)]])
        // Opening again changes nothing.
        try DocumentStore(openingAt: url, model: withIndexes).close()
        #expect(try sqlRows(url, "SELECT count(*) FROM \"Place.byLocation\"") == [[.integer(30)]])
    }

    @Test func recoveryRebuildsTheIndexesAndRefillsTheRTree() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let url = try Self.document(in: directory, model: model)
        // Break the byName index: its root page's type byte.
        guard case .integer(let root)? = try sqlRows(url, "SELECT rootpage FROM sqlite_schema WHERE name = 'Place.byName'").first?.first else {
            Issue.record("no byName index")
            return
        }
        let handle = try FileHandle(forUpdating: url)
        try handle.seek(toOffset: UInt64(root - 1) * 4096)
        try handle.write(contentsOf: Data([0x55]))
        try handle.close()
        let recovery = try DocumentRecovery.recover(url)
        #expect(recovery.repairs.contains { $0.contains("rebuilt the snapshot tables from the complete log") }, "\(recovery.repairs)")
        #expect(try integrityCheck(url) == "ok")
        #expect(try sqlRows(url, "SELECT count(*) FROM \"Place.byLocation\"") == [[.integer(30)]])
        #expect(try sqlRows(url, "SELECT count(*) FROM Place INDEXED BY \"Place.byName\" WHERE name >= ''") == [[.integer(40)]])
        try DocumentStore(openingAt: url, model: model).close()
    }
}

/// Fetches bounded on every element of an R-tree index go through it, with the rows the
/// evaluator picks.
@Suite struct RTreeFetches {
    static func places(_ format: String, model: ManagedObjectModel, url: URL) throws -> [Int64] {
        let store = try DocumentStore(openingAt: url, model: model)
        defer { try? store.close() }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addStore(store)
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Place", predicate: try FetchPredicate(format: format),
                                   sortDescriptors: [FetchSortDescriptor("rank")])
        return try context.fetch(request).map { try $0.int("rank") ?? -1 }
    }

    @Test func aBoxOnBothElementsUsesTheRTreeAndFindsTheSameRows() throws {
        let directory = try TemporaryDirectory()
        let model = try FetchIndexes.model()
        let url = try FetchIndexes.document(in: directory, model: model)
        let box = "latitude BETWEEN {10, 20} AND longitude >= -17 AND longitude <= -10.0"
        let explained = try FetchIndexes.queryPlan(url, model: model, box)
        #expect(explained.contains("VIRTUAL TABLE INDEX"), "\(explained)")
        #expect(try Self.places(box, model: model, url: url) == [10, 11, 13, 14, 15, 17])
        // Edges: equal bounds, a bound on the boundary value, huge integers.
        #expect(try Self.places("latitude == 15 AND longitude == -15", model: model, url: url) == [15])
        #expect(try Self.places("latitude >= 39 AND longitude < 0", model: model, url: url) == [39])
        #expect(try Self.places("latitude > 9223372036854775807 AND longitude < 0", model: model, url: url) == [])
        #expect(try Self.places("latitude BETWEEN {20, 10} AND longitude < 0", model: model, url: url) == [])
        // One element bounded only: no R-tree (rows missing from it could match).
        let half = try FetchIndexes.queryPlan(url, model: model, "latitude BETWEEN {10, 20}")
        #expect(!half.contains("VIRTUAL TABLE"), "\(half)")
        #expect(try Self.places("latitude BETWEEN {10, 20} AND longitude != nil", model: model, url: url) == [10, 11, 13, 14, 15, 17, 18, 19])
    }
}
