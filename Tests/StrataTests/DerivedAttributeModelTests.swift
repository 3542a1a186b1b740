import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Derived attributes in models: read from Xcode XML and the JSON model, written back,
/// checked when the model is built.
@Suite struct DerivedAttributeModels {
    @Test func theXcodeFixtureReadsEveryDerivation() throws {
        let department = try derivedCompanyModel.entity(named: "Department")
        let employee = try derivedCompanyModel.entity(named: "Employee")
        func derivation(_ entity: EntityDescription, _ key: String) -> String? { entity.attributesByName[key]?.derivation?.predicateFormat }
        #expect(derivation(department, "headcount") == "employees.@count")
        #expect(derivation(department, "payroll") == "employees.@sum.salary")
        #expect(derivation(department, "averageSalary") == "employees.@avg.salary")
        #expect(derivation(department, "searchName") == "canonical:(name)")
        #expect(derivation(employee, "departmentName") == "department.name")
        #expect(derivation(employee, "lastModified") == "now()")
        #expect(derivation(department, "name") == nil)
        #expect(employee.attributesByName["lastModified"]?.isDerived == true)
    }

    @Test func theJSONModelRoundTripsDerivationsAndKeepsTheVersionHash() throws {
        let json = derivedCompanyModel.jsonRepresentation()
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""derivation": "employees.@sum.salary""#) || text.contains(#""derivation":"employees.@sum.salary""#))
        let reread = try ManagedObjectModel(jsonData: json)
        for entity in derivedCompanyModel.entities {
            #expect(try reread.entity(named: entity.name).attributes == entity.attributes)
        }
        #expect(reread.versionHash == derivedCompanyModel.versionHash)
    }

    @Test func aDerivationChangesNoVersionHashSinceItChangesNoStorage() throws {
        func model(_ derivation: FetchExpression?) throws -> ManagedObjectModel {
            try ManagedObjectModel(entities: [
                EntityDescription("Item", attributes: [AttributeDescription("name", .string),
                                                       AttributeDescription("key", .string, derivation: derivation)]),
            ])
        }
        #expect(try model(nil).versionHash == model(.function(.canonical, [.key("name")])).versionHash)
    }

    private func problems(_ attributes: [AttributeDescription]) -> [String] {
        let error = strataError {
            _ = try ManagedObjectModel(entities: [
                EntityDescription("Team", attributes: [AttributeDescription("name", .string)] + attributes,
                                  relationships: [RelationshipDescription("members", to: "Member", toMany: true, inverse: "team"),
                                                  RelationshipDescription("lead", to: "Member")]),
                EntityDescription("Member", attributes: [AttributeDescription("age", .integer16), AttributeDescription("nick", .string)],
                                  relationships: [RelationshipDescription("team", to: "Team", inverse: "members")]),
            ])
        }
        return error?.problems.map(\.description) ?? []
    }

    @Test func badDerivationsAreClearErrorsNamingEntityAttributeAndExpression() throws {
        func derived(_ name: String, _ type: AttributeType, _ text: String, transient: Bool = false) throws -> AttributeDescription {
            var attribute = try AttributeDescription.derived(name, type, text)
            attribute.isTransient = transient
            return attribute
        }
        #expect(problems([try derived("x", .integer64, "members.@count")]) == [])
        #expect(problems([try derived("x", .string, "members.nick")])
                == ["Team.x: derivation 'members.nick': 'members.nick' runs through a to-many relationship and gives many values; aggregate them (members.@count, @sum.key, @avg, @min, @max)"])
        #expect(problems([try derived("x", .string, "members.@count")])
                == ["Team.x: derivation 'members.@count': gives an integer64 value, which a string attribute cannot hold"])
        #expect(problems([try derived("x", .integer64, "members.@sum.nick")])
                == ["Team.x: derivation 'members.@sum.nick': @sum needs numbers; 'nick' is string"])
        #expect(problems([try derived("x", .string, "boss.name")])
                == ["Team.x: derivation 'boss.name': Team has no attribute or relationship 'boss'"])
        #expect(problems([try derived("x", .string, "lead.nick")])
                == ["Team.x: derivation 'lead.nick': the relationship Team.lead needs an inverse, so that saves know whose value to recompute"])
        #expect(problems([try derived("x", .string, "$NAME")]) == ["Team.x: derivation '$NAME': $NAME: a derivation has no variables"])
        #expect(problems([try derived("x", .string, "canonical:(name)", transient: true)])
                == ["Team.x: derivation 'canonical:(name)': a derived attribute is stored; it cannot be transient"])
        #expect(problems([try derived("x", .string, "name"), try derived("y", .string, "x")])
                == ["Team.y: derivation 'x': 'x' of Team is itself derived; derive from stored attributes"])
        #expect(problems([try derived("x", .date, "uppercase:(members.@count)")])
                == ["Team.x: derivation 'uppercase:(members.@count)': uppercase: needs a string, not an integer64"])
        let syntax = strataError { _ = try AttributeDescription.derived("x", .string, "name +") }
        #expect(syntax?.code == .predicateSyntax)
    }

    @Test func anXcodeFileWithABadDerivationNamesTheLineEntityAndAttribute() throws {
        let directory = try TemporaryDirectory()
        func load(_ attribute: String) -> StrataError? {
            let url = directory.url.appendingPathComponent("contents")
            let xml = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                    <entity name="Team" representedClassName="Team" syncable="YES">
                        \(attribute)
                        <attribute name="name" optional="YES" attributeType="String"/>
                    </entity>
                </model>
                """
            try? Data(xml.utf8).write(to: url)
            return strataError { _ = try ManagedObjectModel(xcdatamodelAt: url) }
        }
        let missing = load(#"<attribute name="key" optional="YES" attributeType="String" derived="YES"/>"#)
        #expect(missing?.code == .modelFile)
        #expect(missing?.message.contains("line 4") == true, "\(String(describing: missing))")
        #expect(missing?.message.contains("Team.key") == true || missing?.context.key == "key", "\(String(describing: missing))")
        #expect(missing?.message.contains("a derived attribute needs a derivationExpression") == true)
        let unparsable = load(#"<attribute name="key" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name"/>"#)
        #expect(unparsable?.code == .modelFile)
        #expect(unparsable?.message.contains("derivation 'canonical:(name' does not parse") == true, "\(String(describing: unparsable))")
        let unknown = load(#"<attribute name="key" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>"#)
        #expect(unknown?.code == .invalidModel)
        #expect(unknown?.problems.map(\.description) == ["Team.key: derivation 'canonical:(title)': Team has no attribute or relationship 'title'"])
    }

    @Test func theJSONModelNamesABadDerivationsField() throws {
        let json = #"{"format": "strata-model", "formatVersion": 1, "entities": [{"name": "Team", "attributes": [{"name": "name", "type": "string"}, {"name": "key", "type": "string", "derivation": "canonical:("}]}]}"#
        let error = strataError { _ = try ManagedObjectModel(jsonData: Data(json.utf8)) }
        #expect(error?.code == .modelFile)
        #expect(error?.message.contains("derivation") == true, "\(String(describing: error))")
    }
}
