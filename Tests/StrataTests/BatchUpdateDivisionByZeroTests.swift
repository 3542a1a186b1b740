import Foundation
import Testing
import StrataTestSupport
@testable import Strata

/// A batch update whose value divides by zero fails naming the record and writes nothing,
/// in every store (docs/SEMANTICS.md, "Batch requests"); the same expression in a fetch
/// keeps SQL's NULL.
@Suite struct BatchUpdateDivisionByZeroTests {
    @Test(arguments: BatchStoreKind.allCases)
    func divisionOrModulusByZeroRefusesTheBatchNamingTheRecord(kind: BatchStoreKind) throws {
        let fixture = try BatchFixture(kind)
        let graph = try BatchGraph(in: fixture.context)
        let before = try storePicture(fixture.store)
        let salary = FetchExpression.keyPath("salary")
        for value in [FetchExpression.function(.divide, [salary, 0]), .function(.modulus, [salary, 0]),
                      .function(.divide, [.keyPath("rating"), .function(.subtract, [salary, salary])])] {
            let error = strataError {
                _ = try fixture.fresh().executeBatch(BatchUpdateRequest(
                    entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Alan'"), propertiesToUpdate: ["rating": value]))
            }
            #expect(error?.code == .predicateEvaluation, "\(value.predicateFormat)")
            #expect(error?.context.kind == .divisionByZero)
            #expect(error?.context.object == graph.employee("Alan").description)
            #expect(error?.message.contains("division by zero in") == true, "\(error?.message ?? "")")
            #expect(try storePicture(fixture.store) == before)
        }
        // A divisor that is not zero, and a fetch dividing by zero (NULL, unchanged).
        _ = try fixture.fresh().executeBatch(BatchUpdateRequest(
            entityName: "Employee", predicate: try FetchPredicate(format: "firstName == 'Alan'"),
            propertiesToUpdate: ["rating": .function(.divide, [salary, 1000])]))
        #expect(try storedValue(graph.employee("Alan"), "rating", in: fixture.store) == .double(90))
        let nulls = try fixture.fresh().fetch(FetchRequest(entityName: "Employee", predicate: try FetchPredicate(format: "salary / 0 == nil")))
        #expect(nulls.count == 5)
    }
}
