import Foundation
import Testing

/// `strata info` lists each entity's indexes and uniqueness constraints (and, through
/// their hooks, derived and composite attributes), as text and as JSON.
@Suite struct InfoModelSection {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Place" representedClassName="Place" syncable="YES" codeGenerationType="class">
                <attribute name="name" attributeType="String"/>
                <attribute name="code" optional="YES" attributeType="String" indexed="YES"/>
                <attribute name="rank" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="code"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
                <fetchIndex name="byNameAndRank">
                    <fetchIndexElement property="name" type="Binary" order="ascending"/>
                    <fetchIndexElement property="rank" type="Binary" order="descending"/>
                </fetchIndex>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="RTree"/>
                    <fetchIndexElement property="longitude" type="RTree"/>
                </fetchIndex>
            </entity>
            <entity name="Note" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    @Test func infoShowsIndexesAndConstraintsPerEntity() throws {
        let sandbox = try TemporaryDirectory()
        let modelDirectory = URL(fileURLWithPath: sandbox.path("Places.xcdatamodel"))
        try FileManager.default.createDirectory(at: modelDirectory, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: modelDirectory.appendingPathComponent("contents"))
        let document = sandbox.path("places.strata")
        let created = try CLI.strata("new", document, "--model", modelDirectory.path)
        #expect(created.status == 0, "\(created.stderr)")

        let text = try CLI.strata("info", document)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let place = try #require(lines.firstIndex(of: "Place"), "\(text.stdout)")
        #expect(lines[place + 1] == "  indexes   byNameAndRank (name, rank desc); byLocation r-tree (latitude, longitude); code_index (code)")
        #expect(lines[place + 2] == "  unique    (code)")
        #expect(!lines.contains("Note"), "an entity without indexes or constraints has no block")

        let json = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        let placeJSON = try #require(entities.first { $0["name"] as? String == "Place" })
        let indexes = try #require(placeJSON["indexes"] as? [[String: Any]])
        #expect(indexes.map { $0["name"] as? String } == ["byNameAndRank", "byLocation", "code_index"])
        let elements = try #require(indexes[0]["elements"] as? [[String: Any]])
        #expect(elements[1]["property"] as? String == "rank")
        #expect(elements[1]["ascending"] as? Bool == false)
        #expect((indexes[1]["elements"] as? [[String: Any]])?.first?["type"] as? String == "rtree")
        #expect(placeJSON["uniquenessConstraints"] as? [[String]] == [["code"]])
        #expect((placeJSON["derivedAttributes"] as? [Any])?.isEmpty == true)
        #expect((placeJSON["compositeAttributes"] as? [Any])?.isEmpty == true)
    }
}
