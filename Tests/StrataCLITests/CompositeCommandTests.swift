import Foundation
import Testing

/// Composite attributes through the `strata` tool: insert and fetch by element key paths,
/// export as nested JSON objects, import JSON and CSV (`address.city` columns), `info`.
@Suite("strata with composite attributes")
struct CompositeCommandTests {
    static let model = """
        {"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Person",
          "attributes": [{"name": "name", "type": "string"}],
          "composites": [{"name": "address", "typeName": "Address", "elements": [
            {"name": "city", "type": "string", "optional": false},
            {"name": "zip", "type": "string"},
            {"name": "floor", "type": "integer16"}]}]}]}
        """

    static func document(_ sandbox: TemporaryDirectory, _ name: String) throws -> String {
        let modelPath = sandbox.path("people.json")
        if !FileManager.default.fileExists(atPath: modelPath) { try Data(model.utf8).write(to: URL(fileURLWithPath: modelPath)) }
        let document = sandbox.path(name)
        let created = try CLI.strata("new", document, "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        return document
    }

    static func names(_ document: String, where predicate: String, sort: String) throws -> [String] {
        let result = try CLI.strata("fetch", document, "Person", "--where", predicate, "--sort", sort, "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try #require(try result.json() as? [[String: Any]])
        return objects.compactMap { $0["name"] as? String }
    }

    @Test("insert, fetch by element, export nested JSON, import JSON and CSV, info")
    func compositeRoundTrip() throws {
        let sandbox = try TemporaryDirectory()
        let source = try Self.document(sandbox, "source.strata")
        _ = try sandbox.insert(source, "Person", "name=Ada", "address.city=Oslo", "address.zip=0150", "address.floor=3")
        try Data("name,address.city,address.zip\nBo,Bergen,5003\nCy,Oslo,0001\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("people.csv")))
        let csv = try CLI.strata("import", source, sandbox.path("people.csv"), "--entity", "Person")
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(try Self.names(source, where: "address.city == 'Oslo'", sort: "address.zip") == ["Cy", "Ada"])

        let exported = try CLI.strata("export", source, "--output", sandbox.path("all.json"))
        #expect(exported.status == 0, "\(exported.stderr)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.path("all.json")))) as? [[String: Any]])
        let ada = try #require(records.first { $0["name"] as? String == "Ada" })
        let address = try #require(ada["address"] as? [String: Any], "\(ada)")
        #expect(address["city"] as? String == "Oslo" && address["zip"] as? String == "0150" && address["floor"] as? Int == 3)
        #expect(ada["address.city"] == nil)

        let copy = try Self.document(sandbox, "copy.strata")
        let imported = try CLI.strata("import", copy, sandbox.path("all.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        let before = try CLI.strata("export", source).json()
        let after = try CLI.strata("export", copy).json()
        #expect(withoutStoreIdentifiers(before) == withoutStoreIdentifiers(after))
        #expect(try Self.names(copy, where: "address.floor == 3 OR address.city == 'Bergen'", sort: "name") == ["Ada", "Bo"])

        let selected = try CLI.strata("fetch", source, "Person", "--select", "address.city, count:(name) AS n",
                                      "--group-by", "address.city", "--sort", "address.city", "--format", "json")
        #expect(selected.status == 0, "\(selected.stderr)")
        let rows = try #require(try selected.json() as? [[String: Any]], "\(selected.stdout)")
        #expect(rows.map { "\($0["address.city"] ?? "?")=\($0["n"] ?? "?")" } == ["Bergen=1", "Oslo=2"], "\(rows)")

        let info = try CLI.strata("info", source)
        #expect(info.stdout.contains("  composite address (Address): city string, zip string?, floor integer16?"), "\(info.stdout)")
    }

    @Test("a bad element name or value in an import file is a clear error and changes nothing")
    func badCompositeImport() throws {
        let sandbox = try TemporaryDirectory()
        let document = try Self.document(sandbox, "people.strata")
        try Data(#"[{"_entity": "Person", "name": "Ada", "address": {"city": "Oslo", "town": "x"}}]"#.utf8)
            .write(to: URL(fileURLWithPath: sandbox.path("bad.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("bad.json")), mentions: ["address.town"])
        try Data(#"[{"_entity": "Person", "name": "Ada", "address": {"city": "Oslo", "floor": "high"}}]"#.utf8)
            .write(to: URL(fileURLWithPath: sandbox.path("mistyped.json")))
        expectFailure(try CLI.strata("import", document, sandbox.path("mistyped.json")), mentions: ["address.floor"])
        let count = try CLI.strata("fetch", document, "Person", "--count")
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("a nested composite: insert and fetch by its key path, export and import nested JSON and CSV, info")
    func nestedCompositeRoundTrip() throws {
        let sandbox = try TemporaryDirectory()
        let modelPath = try sandbox.writeSitesModel()
        let source = sandbox.path("sites.strata")
        #expect(try CLI.strata("new", source, "--model", modelPath).status == 0)
        _ = try sandbox.insert(source, "Site", "name=Oslo", "address.city=Oslo", "address.geo.lat=59.9", "address.geo.lon=10.7")
        try Data("name,address.city,address.geo.lat,address.geo.lon\nRome,Rome,41.9,12.5\n".utf8).write(to: URL(fileURLWithPath: sandbox.path("sites.csv")))
        let csv = try CLI.strata("import", source, sandbox.path("sites.csv"), "--entity", "Site")
        #expect(csv.status == 0, "\(csv.stderr)")
        let north = try CLI.strata("fetch", source, "Site", "--where", "address.geo.lat > 50", "--count")
        #expect(north.stdout == "1\n", "\(north.stdout)\(north.stderr)")

        let exported = try CLI.strata("export", source)
        #expect(exported.status == 0, "\(exported.stderr)")
        let records = try #require(try exported.json() as? [[String: Any]])
        let oslo = try #require(records.first { $0["name"] as? String == "Oslo" })
        let address = try #require(oslo["address"] as? [String: Any], "\(oslo)")
        let geo = try #require(address["geo"] as? [String: Any], "\(address)")
        #expect(address["city"] as? String == "Oslo" && geo["lat"] as? Double == 59.9 && geo["lon"] as? Double == 10.7)

        try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: sandbox.path("all.json")))
        let copy = sandbox.path("copy.strata")
        #expect(try CLI.strata("new", copy, "--model", modelPath).status == 0)
        let imported = try CLI.strata("import", copy, sandbox.path("all.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(withoutStoreIdentifiers(try CLI.strata("export", copy).json()) == withoutStoreIdentifiers(try exported.json()))

        let info = try CLI.strata("info", source)
        #expect(info.stdout.contains("composite address (Address): city string?, geo (Geo) {lat double?, lon double?}"), "\(info.stdout)")
        let json = try #require(try CLI.strata("info", source, "--json").json() as? [String: Any])
        let entity = try #require((json["entities"] as? [[String: Any]])?.first)
        let composites = try #require(entity["compositeAttributes"] as? [[String: Any]])
        let elements = try #require(composites.first?["elements"] as? [Any])
        #expect(elements.first as? String == "city")
        #expect((elements.last as? [String: Any])?["name"] as? String == "geo", "\(elements)")
    }
}
