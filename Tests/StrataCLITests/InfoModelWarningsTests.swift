import Foundation
import Testing
import StrataTestSupport

/// What a lenient read of an Xcode model left out (docs/MODEL-FORMAT.md, "Lenient and
/// strict") is kept with the document (docs/FORMAT.md, "Model warnings"): `strata new`
/// prints it once, `strata info` shows it for as long as the model is the document's, and a
/// migration to a model without such elements clears it.
@Suite struct InfoModelWarnings {
    /// An `.xcdatamodel` folder whose Item entity holds `extra` besides its `name`.
    private func xcodeModel(_ sandbox: TemporaryDirectory, _ name: String, extra: String) throws -> String {
        let folder = URL(fileURLWithPath: sandbox.path("\(name).xcdatamodel"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Item" representedClassName="Item" syncable="YES">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    \(extra)
                </entity>
            </model>
            """
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder.path
    }

    @Test func infoShowsWhatTheModelFileLeftOutUntilAMigrationReplacesIt() throws {
        let sandbox = try TemporaryDirectory()
        let lenient = try xcodeModel(sandbox, "V1", extra: #"<attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>"#)
        let document = sandbox.path("items.strata")
        let created = try CLI.strata("new", document, "--model", lenient)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("strata: warning: ") && created.stderr.contains("'scratch'"), "\(created.stderr)")

        let text = try CLI.strata("info", document)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex { $0.hasPrefix("Warnings  ") }, "\(text.stdout)")
        #expect(lines[heading + 1].hasPrefix("  - ") && lines[heading + 1].contains("'scratch'"), "\(text.stdout)")

        let json = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        let warnings = try #require(json["modelWarnings"] as? [String])
        #expect(warnings.count == 1 && warnings[0].contains("'scratch'"), "\(warnings)")

        // A later model that reads whole: the document's warnings go with the old model.
        let strict = try xcodeModel(sandbox, "V2", extra: #"<attribute name="note" optional="YES" attributeType="String"/>"#)
        let migrated = try CLI.strata("migrate", document, "--model", strict)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let after = try CLI.strata("info", document)
        #expect(after.status == 0 && !after.stdout.contains("Warnings  "), "\(after.stdout)")
        let afterJSON = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        #expect((afterJSON["modelWarnings"] as? [String]) == [])
    }

    /// Every real Xcode model of the fixtures, and the two shapes Xcode writes that Strata
    /// once refused, make a document `strata info` reads; the empty nested composite is a
    /// warning there, the derived `Double` of `now()` loads whole.
    @Test(arguments: CodegenCommand.fixtures)
    func infoReadsADocumentOfEveryFixtureModel(_ fixture: String) throws {
        let sandbox = try TemporaryDirectory()
        let folder = URL(fileURLWithPath: sandbox.path("Model.xcdatamodel"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: folder.appendingPathComponent("contents").path)
        let document = sandbox.path("fixture.strata")
        let created = try CLI.strata("new", document, "--model", folder.path)
        #expect(created.status == 0, "\(fixture): \(created.stderr)")
        let info = try CLI.strata("info", document, "--json")
        #expect(info.status == 0, "\(fixture): \(info.stderr)")
        let json = try #require(try info.json() as? [String: Any])
        let warnings = json["modelWarnings"] as? [String] ?? []
        if fixture.hasSuffix("Strata__EmptyNestedComposite.xml") {
            #expect(warnings.count == 1 && warnings[0].contains("has no elements"), "\(warnings)")
        } else if fixture.hasSuffix("Strata__DerivedDoubleNow.xml") {
            #expect(warnings.isEmpty, "\(warnings)")
        }
    }
}
