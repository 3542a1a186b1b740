import Foundation
import Testing
@testable import Strata

private typealias F = MigrationFixtures

@Suite struct ModelVersionFileTests {
    @Test func anXcdatamodeldFolderListsEveryVersionAndItsCurrentOne() throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.url.appendingPathComponent("SampleModel.xcdatamodeld")
        for (name, fixture) in [("SampleModel", "CoreDataPlus__SampleModel"), ("SampleModel3", "CoreDataPlus__SampleModel3")] {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: ModelFixtures.xcodeFixtureURL(fixture), to: folder.appendingPathComponent("contents"))
        }
        let plist = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "SampleModel3.xcdatamodel"], format: .xml, options: 0)
        try plist.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let versions = try ManagedObjectModel.versions(at: bundle)
        #expect(versions.names == ["SampleModel", "SampleModel3"])
        #expect(versions.currentName == "SampleModel3")
        #expect(versions.current.entitiesByName["LuxuryCar"] != nil)
        #expect(versions.model(named: "SampleModel")?.entitiesByName["ExpensiveSportCar"] != nil)
        #expect(try ManagedObjectModel(contentsOf: bundle).versionHash == versions.current.versionHash)
    }

    @Test func aJSONVersionListNamesItsVersionsAndOpensAsItsCurrentOne() throws {
        let directory = try TemporaryDirectory()
        try F.v1().jsonRepresentation().write(to: directory.url.appendingPathComponent("library-1.json"))
        try MigrationTests.v2().jsonRepresentation().write(to: directory.url.appendingPathComponent("library-2.json"))
        let list = directory.url.appendingPathComponent("Library.json")
        try Data(#"{"versions": [{"name": "1", "file": "library-1.json"}, {"name": "2", "file": "library-2.json"}], "current": "2"}"#.utf8).write(to: list)
        let versions = try ManagedObjectModel.versions(at: list)
        #expect(versions.names == ["1", "2"])
        let v2Hash = try MigrationTests.v2().versionHash
        #expect(versions.current.versionHash == v2Hash)
        #expect(try ManagedObjectModel(contentsOf: list).versionHash == v2Hash)
        // Renaming identifiers of properties survive the JSON round trip.
        #expect(versions.current.entitiesByName["Book"]?.attributesByName["name"]?.renamingIdentifier == "title")

        try Data(#"{"versions": [{"name": "1", "file": "Library.json"}]}"#.utf8).write(to: directory.url.appendingPathComponent("loop.json"))
        let loop = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: directory.url.appendingPathComponent("loop.json")) }
        #expect(loop.code == .modelFile && loop.message.contains("version list itself"), "\(loop.message)")
        try Data(#"{"versions": [{"name": "1", "file": "library-1.json"}], "current": "9"}"#.utf8).write(to: directory.url.appendingPathComponent("bad.json"))
        let bad = try #require(throws: StrataError.self) { try ManagedObjectModel.versions(at: directory.url.appendingPathComponent("bad.json")) }
        #expect(bad.message.contains("current version '9'"), "\(bad.message)")
    }

    @Test func renamingIdentifiersOfPropertiesAreReadFromXcodeElementIDs() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Book" elementID="Volume">
                    <attribute name="heading" attributeType="String" elementID="title"/>
                    <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" elementID="author"/>
                </entity>
            </model>
            """
        let model = try ManagedObjectModel(xcodeModelContents: Data(xml.utf8), file: "inline")
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.renamingIdentifier == "Volume")
        #expect(book.attributesByName["heading"]?.renamingIdentifier == "title")
        #expect(book.relationshipsByName["writer"]?.renamingIdentifier == "author")
        #expect(try ManagedObjectModel(jsonData: model.jsonRepresentation()).entitiesByName["Book"]?.relationshipsByName["writer"]?.renamingIdentifier == "author")
    }
}
