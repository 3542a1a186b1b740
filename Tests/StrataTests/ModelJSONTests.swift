import Foundation
import Testing
@testable import Strata

@Suite struct ModelJSONFormat {
    @Test func theEmployeeModelRoundTripsToTheSameJSONAndVersionHash() throws {
        let model = try ModelFixtures.employeeModel()
        let json = model.jsonRepresentation()
        let copy = try ManagedObjectModel(jsonData: json)
        #expect(copy.jsonRepresentation() == json)
        #expect(copy.versionHash == model.versionHash)
        #expect(copy.entities.map(\.name) == ["Person", "Employee", "Department"])
        #expect(copy.configurations == model.configurations)
        #expect(copy.fetchRequestTemplatesByName == model.fetchRequestTemplatesByName)
        #expect(copy.versionIdentifier == "2.1")
        for (original, read) in zip(model.entities, copy.entities) {
            #expect(read.parentName == original.parentName)
            #expect(read.isAbstract == original.isAbstract)
            #expect(read.declaredAttributes == original.declaredAttributes)
            #expect(read.declaredRelationships == original.declaredRelationships)
            #expect(read.declaredFetchedProperties == original.declaredFetchedProperties)
            #expect(read.uniquenessConstraints == original.uniquenessConstraints)
            #expect(read.userInfo == original.userInfo)
            #expect(read.representedClassName == original.representedClassName)
            #expect(read.renamingIdentifier == original.renamingIdentifier)
            #expect(read.slotNames == original.slotNames)
        }
    }

    @Test func theFormatDocumentsTheEmployeeModelByteForByte() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("docs/MODEL-FORMAT.md"), encoding: .utf8)
        let start = try #require(document.range(of: "```json\n"))
        let end = try #require(document.range(of: "\n```", range: start.upperBound..<document.endIndex))
        let example = String(document[start.upperBound...end.lowerBound])
        #expect(example == String(decoding: try ModelFixtures.employeeModel().jsonRepresentation(), as: UTF8.self))
        #expect(try ManagedObjectModel(jsonData: Data(example.utf8)).versionHash == ModelFixtures.employeeModel().versionHash)
    }

    @Test func typedValuesAreWrittenByAttributeType() throws {
        let text = String(decoding: try ModelFixtures.employeeModel().jsonRepresentation(), as: UTF8.self)
        #expect(text.contains(#""default": 50000"#))
        #expect(text.contains(#""default": "12.50""#) || text.contains(#""default": "12.5""#))
        #expect(text.contains(#""default": "2020-01-01T09:30:00.25Z""#))
        #expect(text.contains(#""default": "AAEC+g==""#))
        #expect(text.contains(#""default": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#))
        #expect(text.contains(#""default": "https://example.com/~me""#))
        #expect(text.contains(#""default": 0.3"#))
        #expect(text.contains(#""default": false"#))
        #expect(text.contains(#""minValue": "1900-01-01T00:00:00Z""#))
        #expect(text.contains(#""display": "E-mail \"work\"""#))
    }

    @Test func theOutputIsPrettyPrintedWithSortedKeys() throws {
        let text = String(decoding: try ModelFixtures.employeeModel().jsonRepresentation(), as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"configurations\": {\n"))
        #expect(text.hasSuffix("}\n"))
        let topLevelKeys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }
            .map { String($0.dropFirst(3).prefix { $0 != "\"" }) }
        #expect(topLevelKeys == ["configurations", "entities", "fetchRequestTemplates", "format", "formatVersion",
                                 "versionIdentifier"])
    }

    @Test(arguments: ModelFixtures.xcodeFixtureNames)
    func everyFixtureModelRoundTripsThroughJSON(_ name: String) throws {
        let model = try ModelFixtures.xcodeModel(name)
        let json = model.jsonRepresentation()
        let copy = try ManagedObjectModel(jsonData: json)
        #expect(copy.jsonRepresentation() == json)
        #expect(copy.versionHash == model.versionHash)
        #expect(copy.entities.map(\.slotNames) == model.entities.map(\.slotNames))
    }

    @Test func fractionalDatesAndExtremeNumbersSurviveExactly() throws {
        let dates = [0.1, -0.5, 1e-7, 123_456_789.123_456_7, -978_307_200.000_001, 3e10 + 0.75]
            .map { Date(timeIntervalSinceReferenceDate: $0) }
        for date in dates {
            let text = try #require(ModelDateText.string(from: date))
            #expect(ModelDateText.date(from: text) == date, "\(text)")
        }
        let entity = EntityDescription("Sample", attributes: [
            AttributeDescription("big", .integer64, defaultValue: .integer(Int64.max), minValue: .integer(Int64.min)),
            AttributeDescription("tiny", .double, defaultValue: .double(Double.leastNonzeroMagnitude), maxValue: .double(.infinity)),
            AttributeDescription("exact", .decimal, defaultValue: .decimal(Decimal(string: "1234567890.123456789012345")!)),
            AttributeDescription("when", .date, defaultValue: .date(dates[3])),
        ])
        let model = try ManagedObjectModel(entities: [entity])
        let copy = try ManagedObjectModel(jsonData: model.jsonRepresentation())
        #expect(copy.entities[0].declaredAttributes == model.entities[0].declaredAttributes)
    }

    @Test func offsetsAndSecondsAreAcceptedForDates() throws {
        #expect(ModelDateText.date(from: "2001-01-01T01:00:00+01:00") == Date(timeIntervalSinceReferenceDate: 0))
        #expect(ModelDateText.date(from: "2000-02-29T00:00:00Z") != nil)
        #expect(ModelDateText.date(from: "2001-02-29T00:00:00Z") == nil)
        #expect(ModelDateText.date(from: "2001-01-01 00:00:00Z") == nil)
        #expect(ModelDateText.date(from: "2001-01-01T00:00:00") == nil)
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "E", "attributes": [{"name": "d", "type": "date", "default": 60}]}]}"#
        let model = try ManagedObjectModel(jsonData: Data(json.utf8))
        #expect(model.entities[0].attributes[0].defaultValue == .date(Date(timeIntervalSinceReferenceDate: 60)))
    }

    @Test func anUnknownFieldIsRejectedWithItsPath() throws {
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Employee", "attributes": [{"name": "salary", "type": "integer64", "optinal": false}]}]}"#
        let error = try #require(ModelFixtures.jsonError(json))
        #expect(error.code == .modelFile)
        #expect(error.context.jsonPath == "entities[0].attributes[0].optinal")
        #expect(error.context.entity == "Employee")
        #expect(error.context.key == "salary")
        #expect(error.context.field == "optinal")
        #expect(error.message.contains("unknown field 'optinal'"))
    }

    @Test func aValueOfTheWrongKindIsRejectedWithItsPath() throws {
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Employee", "attributes": [{"name": "salary", "type": "integer16", "default": "ten"}]}]}"#
        let error = try #require(ModelFixtures.jsonError(json))
        #expect(error.code == .modelFile)
        #expect(error.context.jsonPath == "entities[0].attributes[0].default")
        #expect(error.message.contains("expected an integer"))
        let outOfRange = json.replacingOccurrences(of: #""ten""#, with: "40000")
        #expect(ModelFixtures.jsonError(outOfRange)?.message.contains("out of the range of integer16") == true)
        let fraction = json.replacingOccurrences(of: #""ten""#, with: "1.5")
        #expect(ModelFixtures.jsonError(fraction)?.code == .modelFile)
        let flag = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "E", "abstract": "yes"}]}"#
        #expect(ModelFixtures.jsonError(flag)?.context.jsonPath == "entities[0].abstract")
    }

    @Test func anUnknownAttributeTypeOrDeleteRuleIsRejected() throws {
        let type = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "E", "attributes": [{"name": "a", "type": "Integer 16"}]}]}"#
        let typeError = try #require(ModelFixtures.jsonError(type))
        #expect(typeError.context.field == "type")
        #expect(typeError.message.contains("unknown attribute type 'Integer 16'"))
        let rule = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "E", "relationships": [{"name": "r", "destination": "E", "deleteRule": "No Action"}]}]}"#
        let ruleError = try #require(ModelFixtures.jsonError(rule))
        #expect(ruleError.context.jsonPath == "entities[0].relationships[0].deleteRule")
        #expect(ruleError.context.key == "r")
    }

    @Test func theFormatHeaderIsRequired() throws {
        #expect(ModelFixtures.jsonError(#"{"entities": []}"#)?.context.field == "format")
        #expect(ModelFixtures.jsonError(#"{"format": "strata-model", "formatVersion": 2, "entities": []}"#)?
            .message.contains("version 2 is not supported") == true)
        #expect(ModelFixtures.jsonError(#"{"format": "strata-model", "formatVersion": 1}"#)?.context.field == "entities")
        #expect(ModelFixtures.jsonError(#"[]"#)?.message.contains("expected an object") == true)
    }

    @Test func malformedJSONReportsLineAndColumn() throws {
        let text = "{\n  \"format\": \"strata-model\",\n  \"formatVersion\": 1,\n  \"entities\": [,]\n}"
        let error = try #require(ModelFixtures.jsonError(text))
        #expect(error.code == .modelFile)
        #expect(error.context.line == 4)
        #expect(error.context.column == 16)
        for bad in ["", "{", "{\"a\": 1,}", "{\"a\": 01}", "{\"a\": \"\\x\"}", "{\"a\": 1} x", "{\"a\": 1, \"a\": 2}",
                    "{\"a\": \"\u{01}\"}", "{\"a\": \"\\ud800\"}", "nul", String(repeating: "[", count: 10_000)] {
            #expect(ModelFixtures.jsonError(bad)?.code == .modelFile, "\(bad.prefix(20))")
        }
        let invalidUTF8 = Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])
        #expect(throws: StrataError.self) { try ManagedObjectModel(jsonData: invalidUTF8) }
    }

    @Test func stringsWithEscapesAndUnicodeRoundTrip() throws {
        let info = ["quote \"x\"": "back\\slash", "tab\tnewline\n": "control \u{01}", "emoji": "😀 é", "slash": "a/b"]
        let model = try ManagedObjectModel(entities: [EntityDescription("E", userInfo: info)])
        let json = model.jsonRepresentation()
        #expect(String(decoding: json, as: UTF8.self).contains(#""control \u0001""#))
        #expect(try ManagedObjectModel(jsonData: json).entities[0].userInfo == info)
        let escaped = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "\u00c9t\ud83d\ude00\/"}]}"#
        #expect(try ManagedObjectModel(jsonData: Data(escaped.utf8)).entities[0].name == "Ét😀/")
    }
}
