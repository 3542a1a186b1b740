import Foundation
import Strata
import StrataInspectorCore
import StrataTestSupport
import Testing

/// Every JSON endpoint against a real document, with ordinary and hostile parameters.
@Suite struct InspectorAPITests {
    let fixture: InspectorFixture

    init() throws { fixture = try InspectorFixture() }

    @Test func theDocumentListsEachEntityWithItsObjectCount() throws {
        try fixture.withAPI { api in
            let answer = try api.get("/api/document")
            #expect(answer.status == 200)
            #expect(answer.json["lastSequence"] as? Int == 5)
            let entities = try #require(answer.json["entities"] as? [[String: Any]])
            let counts = Dictionary(uniqueKeysWithValues: entities.map { ($0["name"] as! String, $0["objects"] as? Int) })
            #expect(counts["Employee"] == 32)
            #expect(counts["Department"] == 1)
            #expect(counts["Person"] == .some(nil))
        }
    }

    @Test func objectsComeAPageAtATimeSortedAndFilteredByAPredicate() throws {
        try fixture.withAPI { api in
            let first = try api.get("/api/objects", ["entity": "Employee", "sort": "salary:desc", "limit": "10"])
            #expect(first.status == 200)
            #expect(first.json["total"] as? Int == 32)
            let rows = try #require(first.json["rows"] as? [[String: Any]])
            #expect(rows.count == 10)
            let columns = try #require(first.json["columns"] as? [[String: Any]]).map { $0["name"] as! String }
            let salary = try #require(columns.firstIndex(of: "salary"))
            let salaries = rows.map { ($0["values"] as! [Any])[salary] as! Int }
            #expect(salaries == salaries.sorted(by: >))
            #expect(salaries.first == 150_000)

            let last = try api.get("/api/objects", ["entity": "Employee", "sort": "salary", "offset": "30", "limit": "10"])
            #expect((last.json["rows"] as? [Any])?.count == 2)

            let matching = try api.get("/api/objects", ["entity": "Employee", "where": "lastName BEGINSWITH 'Tur'"])
            #expect(matching.json["total"] as? Int == 1)
            let department = try #require(columns.firstIndex(of: "department"))
            let row = try #require((matching.json["rows"] as? [[String: Any]])?.first)
            #expect(((row["values"] as! [Any])[department] as? [String: Any])?["ref"] as? String == "Department/p1")
        }
    }

    @Test func aMalformedPredicateIsA400NamingItsColumn() throws {
        try fixture.withAPI { api in
            let answer = try api.get("/api/objects", ["entity": "Employee", "where": "salary >> 3 AND"])
            #expect(answer.status == 400)
            let message = try #require(answer.error)
            #expect(message.hasPrefix("Malformed predicate"))
            #expect(message.contains("column"))
            let unknownKey = try api.get("/api/objects", ["entity": "Employee", "where": "wage > 3"])
            #expect(unknownKey.status == 400)
            #expect(unknownKey.error?.contains("wage") == true)
        }
    }

    @Test func pagesOverTheCapAndBadNumbersAre400s() throws {
        try fixture.withAPI { api in
            for parameters in [["limit": "501"], ["limit": "0"], ["limit": "99999999999999999999"], ["offset": "-1"],
                               ["offset": "ten"], ["sort": "salary:sideways"], ["sort": "wage"], ["at": "-3"],
                               ["where": String(repeating: "(", count: 70_000)]] {
                let answer = try api.get("/api/objects", parameters.merging(["entity": "Employee"]) { $1 })
                #expect(answer.status == 400, "\(parameters.mapValues { $0.prefix(40) })")
                #expect(answer.error?.isEmpty == false)
            }
            let missing = try api.get("/api/objects")
            #expect(missing.status == 400)
            #expect(missing.error == "The parameter entity is missing.")
        }
    }

    @Test func unknownEntitiesObjectsSavesAndPathsAre404s() throws {
        try fixture.withAPI { api in
            let entity = try api.get("/api/objects", ["entity": "Employe"])
            #expect(entity.status == 404)
            #expect(entity.error?.contains("Employee") == true)
            #expect(try api.get("/api/object", ["id": "Employee/p999"]).status == 404)
            #expect(try api.get("/api/object", ["id": "Nobody/p1"]).status == 404)
            #expect(try api.get("/api/object", ["id": "garbage"]).status == 400)
            #expect(try api.get("/api/save", ["sequence": "99"]).status == 404)
            #expect(try api.get("/api/save", ["sequence": "0"]).status == 400)
            #expect(try api.get("/api/nothing").status == 404)
            #expect(try api.get("/api/document", ["at": "99"]).status == 400)
        }
    }

    @Test func markupInAValueStaysAStringInTheJSON() throws {
        try fixture.withAPI { api in
            // Save 3 inserted it and save 4 undid that: it lives only as of save 3.
            let answer = try api.get("/api/objects", ["entity": "Employee", "where": "firstName == 'Mallory'", "at": "3"])
            #expect(answer.status == 200)
            let row = try #require((answer.json["rows"] as? [[String: Any]])?.first)
            #expect((row["values"] as? [Any])?.contains { $0 as? String == InspectorFixture.hostileName } == true)
            #expect(try api.get("/api/objects", ["entity": "Employee", "where": "firstName == 'Mallory'"]).json["total"] as? Int == 0)
        }
    }

    @Test func anObjectPageHasItsValuesLinksAndHistory() throws {
        try fixture.withAPI { api in
            let answer = try api.get("/api/object", ["id": "Employee/p1"])
            #expect(answer.status == 200)
            let attributes = try #require(answer.json["attributes"] as? [[String: Any]])
            #expect(attributes.contains { $0["name"] as? String == "salary" && $0["value"] as? Int == 150_000 })
            let relationships = try #require(answer.json["relationships"] as? [[String: Any]])
            let department = try #require(relationships.first { $0["name"] as? String == "department" })
            #expect((department["value"] as? [String: Any])?["ref"] as? String == "Department/p1")
            let saves = try #require((answer.json["history"] as? [String: Any])?["saves"] as? [[String: Any]])
            #expect(saves.map { $0["sequence"] as? Int } == [2, 1])
            let raise = try #require((saves[0]["change"] as? [String: Any])?["properties"] as? [[String: Any]])
            #expect(raise.first?["old"] as? Int == 100)
            #expect(raise.first?["new"] as? Int == 150_000)

            let past = try api.get("/api/object", ["id": "Employee/p1", "at": "1"])
            let pastAttributes = try #require(past.json["attributes"] as? [[String: Any]])
            #expect(pastAttributes.contains { $0["name"] as? String == "salary" && $0["value"] as? Int == 100 })
        }
    }

    @Test func theTimelineListsSavesNewestFirstWithFiltersAndACursor() throws {
        try fixture.withAPI { api in
            let all = try api.get("/api/timeline")
            let saves = try #require(all.json["saves"] as? [[String: Any]])
            #expect(saves.map { $0["sequence"] as? Int } == [5, 4, 3, 2, 1])
            #expect(saves.map { $0["action"] as? String } == ["Add Alan", "Hire hostile", "Hire hostile", "Raise Ada", "Found Research"])
            #expect(saves[1]["kinds"] as? [String] == ["undo"])
            #expect(saves[4]["author"] as? String == "ada")
            #expect(saves[4]["context"] as? String == "editor")
            #expect((saves[4]["summary"] as? [String: Any])?["inserted"] as? Int == 3)

            let page = try api.get("/api/timeline", ["limit": "2"])
            #expect((page.json["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [5, 4])
            #expect(page.json["before"] as? Int == 4)
            let next = try api.get("/api/timeline", ["limit": "2", "before": "4"])
            #expect((next.json["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [3, 2])

            let byAda = try api.get("/api/timeline", ["author": "ada"])
            #expect((byAda.json["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [2, 1])
            let undos = try api.get("/api/timeline", ["kind": "undo"])
            #expect((undos.json["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [4])
            let departments = try api.get("/api/timeline", ["entity": "Department"])
            #expect((departments.json["saves"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [5, 4, 3, 1])
            #expect(try api.get("/api/timeline", ["kind": "sideways"]).status == 400)
            #expect(try api.get("/api/timeline", ["entity": "Nobody"]).status == 404)
            #expect(try api.get("/api/timeline", ["limit": "100000"]).status == 400)
        }
    }

    @Test func theChartCountsEverySave() throws {
        try fixture.withAPI { api in
            let chart = try api.get("/api/timeline/chart", ["buckets": "10"])
            let buckets = try #require(chart.json["buckets"] as? [[String: Any]])
            #expect(buckets.count == 10)
            #expect(buckets.map { $0["saves"] as! Int }.reduce(0, +) == 5)
            #expect(buckets.map { $0["undoRedo"] as! Int }.reduce(0, +) == 1)
            #expect(try api.get("/api/timeline/chart", ["buckets": "100000"]).status == 400)
        }
    }

    @Test func aSaveShowsEachChangeWithItsOldAndNewValues() throws {
        try fixture.withAPI { api in
            let save = try api.get("/api/save", ["sequence": "2"])
            #expect(save.status == 200)
            #expect(save.json["action"] as? String == "Raise Ada")
            let changes = try #require(save.json["changes"] as? [[String: Any]])
            #expect(changes.count == 1)
            #expect(changes[0]["ref"] as? String == "Employee/p1")
            #expect(changes[0]["kind"] as? String == "update")
            let property = try #require((changes[0]["properties"] as? [[String: Any]])?.first)
            #expect(property["key"] as? String == "salary")
            #expect(property["old"] as? Int == 100)
            #expect(property["new"] as? Int == 150_000)
        }
    }

    @Test func comparingTwoSavesFoldsWhatHappenedBetween() throws {
        try fixture.withAPI { api in
            // Save 3 inserted Mallory and save 4 undid it: between 2 and 4 nothing is left of her.
            let undone = try api.get("/api/compare", ["from": "2", "to": "4"])
            #expect(undone.status == 200)
            #expect(undone.json["changeCount"] as? Int == 0)
            let all = try api.get("/api/compare", ["from": "0", "to": "5"])
            #expect(all.json["inserted"] as? Int == 33)
            #expect(all.json["updated"] as? Int == 0)
            let raise = try api.get("/api/compare", ["from": "1", "to": "5"])
            #expect(raise.json["updated"] as? Int == 2)  // Ada's salary, Research's employees
            #expect(try api.get("/api/compare", ["from": "4", "to": "2"]).status == 400)
            #expect(try api.get("/api/compare", ["from": "1"]).status == 400)
            #expect(try api.get("/api/compare", ["from": "1", "to": "50"]).status == 404)
        }
    }

    @Test func theUndoViewNamesWhatUndoAndRedoWouldDo() throws {
        try fixture.withAPI { api in
            let undo = try api.get("/api/undo")
            #expect(undo.status == 200)
            #expect(undo.json["canUndo"] as? Bool == true)
            #expect(undo.json["undoActionName"] as? String == "Add Alan")
            let groups = try #require(undo.json["groups"] as? [[String: Any]])
            #expect(groups.first?["action"] as? String == "Add Alan")
            #expect(groups.contains { $0["action"] as? String == "Hire hostile" && $0["undone"] as? Bool == true && $0["kind"] as? String == "user" })
        }
    }

    @Test func theFileViewListsSegmentsSizesAndModelVersions() throws {
        try fixture.withAPI { api in
            let file = try api.get("/api/file")
            #expect(file.status == 200)
            #expect(file.json["segmentCount"] as? Int == 5)
            let segments = try #require(file.json["segments"] as? [[String: Any]])
            #expect(segments.map { $0["sequence"] as? Int } == [5, 4, 3, 2, 1])
            #expect(segments.allSatisfy { ($0["bytes"] as? Int ?? 0) > 0 && ($0["rawBytes"] as? Int ?? 0) > 0 })
            #expect((file.json["modelVersions"] as? [[String: Any]])?.first?["identifier"] as? String == "employees-1")
            let page = try api.get("/api/file", ["limit": "2"])
            #expect((page.json["segments"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [5, 4])
            #expect(page.json["before"] as? Int == 4)
            #expect(try api.get("/api/file", ["limit": "501"]).status == 400)
        }
    }

    @Test func theInspectorNeverChangesTheDocumentsBytes() throws {
        let before = try Data(contentsOf: fixture.url)
        try fixture.withAPI { api throws in
            for path in ["/api/document", "/api/timeline", "/api/timeline/chart", "/api/undo", "/api/file"] {
                #expect(try api.get(path).status == 200)
            }
            #expect(try api.get("/api/objects", ["entity": "Employee", "at": "2"]).status == 200)
            #expect(try api.get("/api/compare", ["from": "1", "to": "5"]).status == 200)
        }
        #expect(try Data(contentsOf: fixture.url) == before)
    }

    @Test func queryStringsDecodePercentEscapesAndPluses() {
        let parameters = InspectorAPI.parameters(fromQuery: "entity=Employee&where=name+%3D%3D+%27a%26b%27&empty=&flag")
        #expect(parameters["entity"] == "Employee")
        #expect(parameters["where"] == "name == 'a&b'")
        #expect(parameters["empty"] == "")
        #expect(parameters["flag"] == "")
    }
}
