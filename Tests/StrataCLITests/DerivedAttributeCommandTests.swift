import Foundation
import Testing
import Strata

/// Derived attributes through the `strata` tool: listed by `info`, computed by `insert`'s save.
@Suite struct DerivedAttributeCommands {
    private static let model = #"""
        {"format": "strata-model", "formatVersion": 1, "entities": [
          {"name": "Team", "attributes": [
             {"name": "name", "type": "string"},
             {"name": "size", "type": "integer64", "derivation": "members.@count"},
             {"name": "key", "type": "string", "derivation": "canonical:(name)"}],
           "relationships": [{"name": "members", "destination": "Member", "toMany": true, "inverse": "team"}]},
          {"name": "Member", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "team", "destination": "Team", "inverse": "members"}]}]}
        """#

    /// A directory with `teams.strata`, a new document of `model` holding team "Équipe"
    /// with one member, Ada.
    private static func teamWithAMember() throws -> TemporaryDirectory {
        let sandbox = try TemporaryDirectory()
        let modelPath = sandbox.path("teams.json")
        try Data(model.utf8).write(to: URL(fileURLWithPath: modelPath))
        let document = sandbox.path("teams.strata")
        #expect(try CLI.strata("new", document, "--model", modelPath).status == 0)
        let team = try sandbox.insert(document, "Team", "name=Équipe")
        _ = try sandbox.insert(document, "Member", "name=Ada", "team=@\(team)")
        return sandbox
    }

    @Test("info lists derived attributes; insert computes them; setting one is refused")
    func infoAndInsert() throws {
        let sandbox = try Self.teamWithAMember()
        let document = sandbox.path("teams.strata")

        let info = try CLI.strata("info", document)
        #expect(info.stdout.contains("Team\n  derived   "), "\(info.stdout)")
        #expect(info.stdout.contains("size (integer64) = members.@count; key (string) = canonical:(name)"), "\(info.stdout)")
        let json = try #require(try CLI.strata("info", document, "--json").json() as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        let derived = try #require(entities.first?["derivedAttributes"] as? [[String: String]])
        #expect(derived == [["name": "size", "derivation": "members.@count"], ["name": "key", "derivation": "canonical:(name)"]])

        let fetched = try CLI.strata("fetch", document, "Team", "--where", "key == 'equipe' AND size == 1", "--count")
        #expect(fetched.stdout == "1\n", "\(fetched.stdout)\(fetched.stderr)")
        let refused = try CLI.strata("insert", document, "Team", "name=Other", "size=3")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Team.size is derived from 'members.@count'"), "\(refused.stderr)")
    }

    @Test("a batch update recomputes derived values in its group: strata-log verify replays it, strata undo restores them")
    func batchUpdateReplayAndUndo() throws {
        let sandbox = try Self.teamWithAMember()
        let document = sandbox.path("teams.strata")

        let updated = try CLI.strata("update", document, "Team", "--where", "name == 'Équipe'", "name='Crème Crew'")
        #expect(updated.status == 0, "\(updated.stderr)")
        func count(_ predicate: String) throws -> String {
            try CLI.strata("fetch", document, "Team", "--where", predicate, "--count").stdout
        }
        #expect(try count("key == 'creme crew' AND size == 1") == "1\n", "recomputed by the batch")
        let verified = try CLI.strataLog("verify", document)
        #expect(verified.status == 0, "replay gives the snapshot: \(verified.stdout)\(verified.stderr)")

        #expect(try CLI.strata("undo", document).status == 0)
        #expect(try count("key == 'equipe' AND name == 'Équipe'") == "1\n", "undo restores the derived value with its input")
        #expect(try CLI.strataLog("verify", document).status == 0)
    }
}
