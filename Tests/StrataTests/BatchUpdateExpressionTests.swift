import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// Every stored record of a store as text, keyed `Entity/pKEY`, references written the same
/// way: two stores holding the same records with the same values (a replayed copy has
/// another store tag) give the same picture.
func storePicture(_ store: any PersistentStore) throws -> [String: String] {
    func name(_ id: ManagedObjectID) -> String { "\(id.entity.name)/p\(id.primaryKey)" }
    func text(_ value: PropertyValue) -> String {
        switch value {
        case .object(let id): return name(id)
        case .objects(let ids): return "[" + ids.map(name).sorted().joined(separator: ",") + "]"
        default: return "\(value)"
        }
    }
    var picture: [String: String] = [:]
    for entity in store.model.entities where !entity.isAbstract {
        for id in try store.fetchObjectIDs(StoreFetchRequest(entity: entity, includesSubentities: false)) {
            guard let row = try store.values(for: id) else { continue }
            picture[name(id)] = zip(entity.slotNames, row).map { "\($0)=\(text($1))" }.joined(separator: " ")
        }
    }
    return picture
}

@Suite struct BatchUpdateExpressionTests {
    @Test(arguments: BatchStoreKind.allCases)
    func everyValueOfARecordIsComputedFromItsOldValuesSoAssignmentsCanSwap(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "department.name == 'R&D'"),
                                         propertiesToUpdate: ["firstName": .keyPath("lastName"), "lastName": .keyPath("firstName"),
                                                              "rating": .keyPath("salary"), "email": nil])
        let result = try fixture.fresh().executeBatch(request)
        #expect(result.count == 2)
        let ada = graph.employee("Ada")
        #expect(try storedValue(ada, "firstName", in: fixture.store) == "Adason")
        #expect(try storedValue(ada, "lastName", in: fixture.store) == "Ada")
        #expect(try storedValue(ada, "rating", in: fixture.store) == .double(120_000))   // integer coerced to the double attribute
        #expect(try storedValue(graph.employee("Alan"), "firstName", in: fixture.store) == "Alanson")
        #expect(try storedValue(graph.employee("Grace"), "firstName", in: fixture.store) == "Grace")   // not matched
    }

    @Test(arguments: BatchStoreKind.allCases)
    func arithmeticStringFunctionsTernaryAndDatesAreComputedPerRecord(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let salary = FetchExpression.keyPath("salary")
        let request = BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: [
            "salary": .function(.multiply, [salary, 2]),                                     // salary * 2
            "rating": .function(.divide, [salary, 3]),                                       // salary / 3: a double
            "lastName": .function(.uppercase, [.keyPath("lastName")]),                       // uppercase:(lastName)
            "active": .conditional(try FetchPredicate(format: "salary > 100000"), then: true, else: false),
            "startDate": .function(.add, [.function(.now, []), 86_400]),                    // now() + 86400
        ])
        let started = Date()
        #expect(try fixture.fresh().executeBatch(request).count == 5)
        func stored(_ name: String, _ key: String) throws -> PropertyValue? { try storedValue(graph.employee(name), key, in: fixture.store) }
        #expect(try stored("Ada", "salary") == .integer(240_000))
        #expect(try stored("Edsger", "salary") == .null)   // NULL in, NULL out
        #expect(try stored("Edsger", "rating") == .null)
        #expect(try stored("Alan", "rating") == .double(30_000))
        #expect(try stored("Barbara", "rating") == .double(70_000.0 / 3))
        #expect(try stored("Grace", "lastName") == "GRACESON")
        #expect(try stored("Ada", "active") == .boolean(true))
        #expect(try stored("Alan", "active") == .boolean(false))
        #expect(try stored("Edsger", "active") == .boolean(false))   // UNKNOWN is not true
        guard case .date(let tomorrow)? = try stored("Barbara", "startDate") else { Issue.record("no start date"); return }
        #expect(tomorrow.timeIntervalSince(started) >= 86_400 && tomorrow.timeIntervalSince(started) < 86_400 + 600)
        #expect(try stored("Ada", "startDate") == .date(tomorrow))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aFractionForAnIntegerAttributeIsRefusedWithAHintAndTruncGivesAWholeNumber(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let raise = FetchExpression.function(.multiply, [.keyPath("salary"), 1.1])   // 90000 * 1.1 == 99000.00000000001
        let error = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Alan'"),
                                                                    propertiesToUpdate: ["salary": raise]))
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.context.object == graph.employee("Alan").description)
        #expect(error?.message.contains("trunc:") == true)
        #expect(try storedValue(graph.employee("Alan"), "salary", in: fixture.store) == .integer(90_000))
        _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Alan'"),
                                                                propertiesToUpdate: ["salary": .function(.truncate, [raise])]))
        #expect(try storedValue(graph.employee("Alan"), "salary", in: fixture.store) == .integer(99_000))
    }

    @Test(arguments: BatchStoreKind.allCases)
    func keyPathsThroughRelationshipsAreReadFromTheRelatedRows(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let request = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "manager != nil"),
                                         propertiesToUpdate: ["lastName": .keyPath("manager.firstName")])
        #expect(try fixture.fresh().executeBatch(request).changes.updated == [graph.employee("Alan"), graph.employee("Grace")])
        #expect(try storedValue(graph.employee("Grace"), "lastName", in: fixture.store) == "Ada")
        #expect(try storedValue(graph.employee("Ada"), "lastName", in: fixture.store) == "Adason")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func aValueThatFailsForOneRecordRefusesTheWholeBatchNamingTheRecordAndKey(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let before = try storePicture(fixture.store)
        // Barbara has no department: lastName (required) would become NULL.
        let required = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["lastName": .keyPath("department.name")]))
        }
        #expect(required?.code == .validation)
        #expect(required?.context.key == "lastName")
        #expect(required?.context.object == graph.employee("Barbara").description)
        #expect(required?.problems.first?.object == graph.employee("Barbara").description)
        #expect(required?.message.contains("department.name") == true)
        // A string into an integer attribute.
        let mismatch = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["salary": .keyPath("firstName")]))
        }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.context.key == "salary")
        #expect(mismatch?.context.expression == "firstName")
        #expect(mismatch?.context.object != nil)
        // A to-many gives a collection, which no attribute holds.
        let collection = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["notes": .keyPath("projects.name")]))
        }
        #expect(collection?.code == .typeMismatch)
        #expect(collection?.message.contains("collection") == true)
        // A to-one gives an object, which no attribute holds either.
        let object = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "manager != nil"),
                                                                    propertiesToUpdate: ["notes": .keyPath("manager")]))
        }
        #expect(object?.code == .typeMismatch)
        #expect(object?.message.contains("object") == true)
        #expect(try storePicture(fixture.store) == before)   // nothing written
    }

    @Test func anExpressionReadingAKeyTheEntityLacksIsRefusedEvenWhenNothingMatches() throws {
        let fixture = try BatchFixture(.memory)
        _ = try BatchGraph(in: fixture.context)
        let error = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(
                entityName: "Employee", predicate: .constant(false),
                propertiesToUpdate: ["salary": .keyPath("wage"), "rating": .keyPath("salary")]))
        }
        #expect(error?.code == .unknownKey)
        #expect(error?.context.key == "salary")
        #expect(error?.message.contains("'wage'") == true)
        let variable = strataError {
            _ = try fixture.fresh().executeBatch(BatchUpdateRequest(entityName: "Employee", predicate: .constant(false),
                                                                    propertiesToUpdate: ["salary": .function(.add, [.keyPath("salary"), .variable("RAISE")])]))
        }
        #expect(variable?.code == .invalidArgument)
        #expect(variable?.context.variable == "RAISE")
    }

    @Test(arguments: BatchStoreKind.allCases)
    func nowIsOneInstantForTheWholeBatchTheGroupsTimestamp(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let started = Date()
        let request = BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["startDate": .function(.now, [])])
        #expect(try fixture.fresh().executeBatch(request).changes.updated.count == 5)
        let dates = try graph.employees.values.map { try storedValue($0, "startDate", in: fixture.store) }
        #expect(Set(dates).count == 1)
        guard case .date(let now)?? = dates.first else { Issue.record("no date: \(dates)"); return }
        #expect(now >= started && now <= Date())
        if let document = fixture.store as? DocumentStore {
            // The segment keeps its timestamp in milliseconds.
            let saved = try #require(try document.segmentRecords().last?.timestamp)
            #expect(abs(saved.timeIntervalSince(now)) <= 0.001)
        }
        // now() in the predicate is pinned too (and SQL then sees a constant date).
        let again = BatchUpdateRequest(entityName: "Employee", predicate: try FetchPredicate(format: "startDate <= now()"),
                                       propertiesToUpdate: ["rating": 1])
        #expect(try fixture.fresh().executeBatch(again).count == 5)
    }

    @Test func theDescriptionPrintsTheExpressions() {
        let request = BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: ["rating": .keyPath("salary"), "active": true])
        #expect(request.description == "BatchUpdateRequest(Employee set active = TRUE, rating = salary)")
        let constants: [String: PropertyValue] = ["salary": 5, "firstName": "Quinn"]
        #expect(BatchUpdateRequest(entityName: "Employee", propertiesToUpdate: constants).propertiesToUpdate == ["salary": 5, "firstName": "Quinn"])
    }
}
