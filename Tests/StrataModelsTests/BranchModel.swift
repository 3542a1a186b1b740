import Foundation
import StrataModels

// Derived and composite attributes and a fetched property declared twice: with the macros here and as JSON in
// `branchJSON` (docs/MODEL-FORMAT.md §3 `derivation`, §3a composites), in the same order,
// so both have the same version hash and open each other's documents.

@Composite
struct Geo: Equatable {
    var lat: Double = 0
    var lon: Double = 0
}

@Composite
struct PostalAddress: Equatable {
    var city: String
    @Attribute(minLength: 4, maxLength: 4, regularExpression: "[0-9]*") var zip: String?
    var floor: Int16 = 1
    var geo: Geo?
}

@Entity
final class Branch: ManagedObject {
    var name: String
    var address: PostalAddress?
    @Attribute(derivation: "staff.@count") var headcount: Int64
    @Attribute(derivation: "staff.@sum.pay") var payroll: Int64?
    @Relationship(inverse: \Clerk.branch) var staff: Set<Clerk>
    #FetchedProperty("wellPaid", entity: Clerk.self, predicate: "branch == $FETCH_SOURCE AND pay > 600")
}

@Entity
final class Clerk: ManagedObject {
    var name: String
    var pay: Int64 = 0
    @Attribute(derivation: "branch.name") var branchName: String?
    @Attribute(derivation: "canonical:(name)") var searchName: String?
    var branch: Branch?
}

func branchModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(types: [Branch.self, Clerk.self])
}

let branchJSON = """
{
  "format": "strata-model", "formatVersion": 1,
  "entities": [
    {"name": "Branch", "attributes": [
      {"name": "name", "type": "string", "optional": false},
      {"name": "headcount", "type": "integer64", "optional": false, "derivation": "staff.@count"},
      {"name": "payroll", "type": "integer64", "derivation": "staff.@sum.pay"}
    ], "composites": [
      {"name": "address", "typeName": "PostalAddress", "elements": [
        {"name": "city", "type": "string", "optional": false},
        {"name": "zip", "type": "string", "minLength": 4, "maxLength": 4, "regularExpression": "[0-9]*"},
        {"name": "floor", "type": "integer16", "optional": false, "default": 1},
        {"name": "geo", "typeName": "Geo", "elements": [
          {"name": "lat", "type": "double", "optional": false, "default": 0},
          {"name": "lon", "type": "double", "optional": false, "default": 0}
        ]}
      ]}
    ], "relationships": [
      {"name": "staff", "destination": "Clerk", "toMany": true, "inverse": "branch"}
    ], "fetchedProperties": [
      {"name": "wellPaid", "entity": "Clerk", "predicate": "branch == $FETCH_SOURCE AND pay > 600"}
    ]},
    {"name": "Clerk", "attributes": [
      {"name": "name", "type": "string", "optional": false},
      {"name": "pay", "type": "integer64", "optional": false, "default": 0},
      {"name": "branchName", "type": "string", "derivation": "branch.name"},
      {"name": "searchName", "type": "string", "derivation": "canonical:(name)"}
    ], "relationships": [
      {"name": "branch", "destination": "Branch", "inverse": "staff"}
    ]}
  ]
}
"""
