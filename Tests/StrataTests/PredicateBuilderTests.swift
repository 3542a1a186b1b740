import Foundation
import Testing
@testable import Strata

@Suite struct PredicateBuilding {
    @Test func theBuilderMakesTheSameTreeAsTheParser() throws {
        let built: FetchPredicate = .key("salary") > 5000 && .key("lastName").beginsWith("Q", options: .caseInsensitive)
        #expect(built == (try FetchPredicate(format: "salary > %d AND lastName BEGINSWITH[c] %@", 5000, "Q")))

        let three: FetchPredicate = .key("a") == 1 && .key("b") != "x" && .key("c") <= 2.5
        #expect(three == (try FetchPredicate(format: "a == 1 AND b != 'x' AND c <= 2.5")))

        let either: FetchPredicate = .key("a") < 1 || .key("b") >= 2 || !(.key("c") == nil)
        #expect(either == (try FetchPredicate(format: "a < 1 OR b >= 2 OR NOT c == nil")))
    }

    @Test func quantifiersCollectionsAndRanges() throws {
        let any: FetchPredicate = .any("employees.salary") > 10
        #expect(any == (try FetchPredicate(format: "ANY employees.salary > 10")))
        let all: FetchPredicate = .all("employees.name").like("Q*")
        #expect(all == (try FetchPredicate(format: "ALL employees.name LIKE 'Q*'")))
        let none: FetchPredicate = .none("employees.salary") == nil
        #expect(none == (try FetchPredicate(format: "NONE employees.salary == nil")))
        #expect(FetchOperand.key("x").in([1, 2, 3]) == (try FetchPredicate(format: "x IN {1, 2, 3}")))
        #expect(FetchOperand.value("a").in(.key("tags.name")) == (try FetchPredicate(format: "'a' IN tags.name")))
        #expect(FetchOperand.key("x").between(1, 10) == (try FetchPredicate(format: "x BETWEEN {1, 10}")))
        #expect((FetchOperand.key("employees.@sum.salary") > 100) == (try FetchPredicate(format: "employees.@sum.salary > 100")))
        #expect((FetchOperand.key("employees.@count") == 0) == (try FetchPredicate(format: "employees.@count == 0")))
        #expect(FetchOperand.key("name").matches("[a-z]+", options: .caseDiacriticInsensitive)
                == (try FetchPredicate(format: "name MATCHES[cd] '[a-z]+'")))
        #expect(FetchOperand.key("name").endsWith("x") == (try FetchPredicate(format: "name ENDSWITH 'x'")))
        #expect(FetchOperand.key("name").contains("x", options: .diacriticInsensitive) == (try FetchPredicate(format: "name CONTAINS[d] 'x'")))
        #expect(FetchOperand.key("name").equalTo("x", options: .caseInsensitive) == (try FetchPredicate(format: "name ==[c] 'x'")))
    }

    @Test func objectsVariablesAndSelf() throws {
        let id = ManagedObjectID(entity: EntityDescription("Department"), storeTag: 1, primaryKey: 3)
        let p: FetchPredicate = .key("department") == .object(id) && .evaluatedObject != .variable("ME")
        #expect(p == (try FetchPredicate(format: "department == %@ AND SELF != $ME", .object(id))))
        let negated: FetchPredicate = .not(.key("a") == .value(.boolean(true)))
        #expect(negated.predicateFormat == "NOT a == TRUE")
    }

    @Test func builtPredicatesEvaluate() throws {
        let row = PredicateRow(["salary": 6000, "lastName": "quinn"])
        let p: FetchPredicate = .key("salary") > 5000 && .key("lastName").beginsWith("Q", options: .caseInsensitive)
        #expect(try p.evaluate(with: row))
        #expect(try !(!p).evaluate(with: row))
    }
}

@Suite struct PredicateVariables {
    @Test func substitutionReplacesEveryFreeVariable() throws {
        let template = try FetchPredicate(format: "lastName == $NAME AND salary > $MIN AND ANY tags.name IN $TAGS")
        #expect(template.variableNames == ["NAME", "MIN", "TAGS"])
        let p = try template.withSubstitutionVariables(["NAME": "Quinn", "MIN": 5000, "TAGS": .null])
        #expect(p == (try FetchPredicate(format: "lastName == 'Quinn' AND salary > 5000 AND ANY tags.name IN nil")))
        #expect(p.variableNames.isEmpty)
    }

    @Test func aMissingVariableIsAnErrorNamingIt() throws {
        let template = try FetchPredicate(format: "a == $A OR b == $MISSING")
        do {
            _ = try template.withSubstitutionVariables(["A": 1])
            Issue.record("substitution should fail")
        } catch let error as StrataError {
            #expect(error.code == .predicateEvaluation)
            #expect(error.message.contains("$MISSING"))
            #expect(error.context.variable == "MISSING")
        }
    }

    @Test func subqueryVariablesStayBound() throws {
        let template = try FetchPredicate(format: "SUBQUERY(employees, $e, $e.salary > $MIN).@count > 0")
        #expect(template.variableNames == ["MIN"])
        let p = try template.withSubstitutionVariables(["MIN": 10])
        #expect(p == (try FetchPredicate(format: "SUBQUERY(employees, $e, $e.salary > 10).@count > 0")))
    }

    @Test func evaluationWithVariablesEqualsEvaluationAfterSubstitution() throws {
        let rows = [PredicateRow(["a": 1, "b": nil]), PredicateRow(["a": 2, "b": "x"]), PredicateRow(["a": nil, "b": "y"])]
        let template = try FetchPredicate(format: "a == $A OR b == $B OR a != $N")
        let variables: [String: PropertyValue] = ["A": 2, "B": "y", "N": nil]
        let substituted = try template.withSubstitutionVariables(variables)
        for row in rows {
            #expect(try template.evaluate(with: row, variables: variables) == substituted.evaluate(with: row))
        }
        #expect(try rows.map { try template.evaluate(with: $0, variables: variables) } == [true, true, true])
    }
}
