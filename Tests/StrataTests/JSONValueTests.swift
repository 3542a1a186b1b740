import Foundation
import Testing
@testable import Strata

/// The one JSON value of the package (model files and the tools): ordered members, a
/// sorted-keys writer, one strict parser whose errors name line and column.
@Suite struct JSONValueTests {
    @Test func membersKeepTheirOrderAndTheWriterSortsKeysOnlyWhenAsked() throws {
        let value = try JSONValue.parse(Array(#"{"zeta": 1, "alpha": [true, null, "x"], "mid": {"b": 2, "a": 1.50}}"#.utf8))
        guard case .object(let members) = value else { Issue.record("not an object: \(value)"); return }
        #expect(members.map(\.key) == ["zeta", "alpha", "mid"])
        #expect(value.rendered(pretty: false) == #"{"zeta":1,"alpha":[true,null,"x"],"mid":{"b":2,"a":1.50}}"#)
        #expect(value.rendered(pretty: false, sortedKeys: true) == #"{"alpha":[true,null,"x"],"mid":{"a":1.50,"b":2},"zeta":1}"#)
        #expect(value.rendered(pretty: true, sortedKeys: true) == """
            {
              "alpha": [
                true,
                null,
                "x"
              ],
              "mid": {
                "a": 1.50,
                "b": 2
              },
              "zeta": 1
            }
            """)
        // What is written parses back to the same value.
        #expect(try JSONValue.parse(Array(value.rendered(pretty: true).utf8)) == value)
    }

    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, "the key \"a\" appears twice in one object", 1, 10),
        ("[1,\n 012]", "a number must not have a leading zero", 2, 3),
        ("[1, 2,]", "unexpected character ']'", 1, 7),
        ("\"\\ud800\"", "a high surrogate escape must be followed by a low surrogate", 1, 8),
    ])
    func badInputIsOneErrorNamingLineAndColumn(text: String, reason: String, line: Int, column: Int) throws {
        let error = try #require(strataError { _ = try JSONValue.parse(Array(text.utf8)) })
        #expect(error.code == .invalidArgument)
        #expect(error.message == "Malformed JSON at line \(line), column \(column): \(reason).", "\(error.message)")
        #expect(error.context.line == line && error.context.column == column)
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let error = try #require(strataError { _ = try JSONValue.parse(Array(deep.utf8)) })
        #expect(error.message.contains("nests deeper than 512 levels"), "\(error.message)")
        let model = try #require(strataError { _ = try JSONValue.parseModel(Data(String(repeating: "[", count: 70).utf8)) })
        #expect(model.code == .modelFile && model.message.contains("Malformed model JSON") && model.message.contains("64 levels"))
    }
}
