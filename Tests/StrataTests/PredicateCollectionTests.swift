import Foundation
import Testing
@testable import Strata

@Suite struct PredicateCollections {
    let f = PredicateFixture()

    @Test func aToManyComparedWithoutAQuantifierIsAnError() {
        let error = evaluationError("employees.salary > 10", f.sales)
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.message.contains("use ANY, ALL or NONE") == true)
        #expect(evaluationError("employees.name IN {'Ann'}", f.sales)?.code == .predicateEvaluation)
        #expect(evaluationError("employees == %@", f.sales, [1])?.code == .predicateEvaluation)
        #expect(evaluationError("name == employees.name", f.sales)?.code == .predicateEvaluation)
    }

    @Test func anyAllAndNoneQuantifyOverElements() throws {
        #expect(try matches("ANY employees.salary > 50000", f.sales))
        #expect(try matches("SOME employees.salary > 50000", f.sales))
        #expect(try !matches("ANY employees.salary > 60000", f.sales))
        #expect(try !matches("ALL employees.salary > 5", f.sales))  // the NULL salary does not satisfy it
        #expect(try matches("ALL employees.salary > 5 OR ANY employees.salary == nil", f.sales))
        #expect(try matches("NONE employees.salary > 60000", f.sales))
        #expect(try !matches("NONE employees.salary > 50000", f.sales))
        #expect(try matches("ANY employees.name BEGINSWITH[c] 'q'", f.sales))
        #expect(try matches("ANY employees.department.name == 'Sales'", f.sales))
    }

    @Test func quantifiersOverAnEmptyCollection() throws {
        #expect(try !matches("ANY employees.salary > 0", f.empty))
        #expect(try matches("ALL employees.salary > 0", f.empty))
        #expect(try matches("NONE employees.salary > 0", f.empty))
        #expect(try !matches("NOT NONE employees.salary > 0", f.empty))
    }

    @Test func collectionOperatorsIgnoreNullsLikeSQL() throws {
        #expect(try matches("employees.@count == 3", f.sales))
        #expect(try matches("employees.@sum.salary == 52010", f.sales))
        #expect(try matches("employees.@avg.salary == 26005", f.sales))
        #expect(try matches("employees.@min.salary == 10", f.sales))
        #expect(try matches("employees.@max.salary == 52000", f.sales))
        #expect(try matches("employees.@max.name == 'Quinn' AND employees.@min.name == 'Ann'", f.sales))
        #expect(try matches("employees.@min.hired == CAST(100.0, 'NSDate')", f.sales))
        #expect(try matches("employees.@sum.rate == 4.0", f.sales))
        #expect(try matches("{1, 2.5, nil}.@sum == 3.5 AND {1, nil, 3}.@avg == 2 AND {nil}.@count == 1", f.sales))
    }

    @Test func collectionOperatorsOverAnEmptyCollection() throws {
        #expect(try matches("employees.@count == 0", f.empty))
        #expect(try matches("employees.@sum.salary == 0", f.empty))
        #expect(try matches("employees.@avg.salary == nil", f.empty))
        #expect(try matches("employees.@min.salary == nil", f.empty))
        #expect(try matches("employees.@max.salary == nil", f.empty))
        #expect(try !matches("employees.@max.salary > 0 OR employees.@max.salary <= 0", f.empty))
    }

    @Test func collectionOperatorErrorsAreReported() {
        #expect(evaluationError("employees.@sum.name == 1", f.sales)?.message.contains("need numbers") == true)
        #expect(evaluationError("employees.@max == 1", f.sales)?.message.contains("needs values, not objects") == true)
        #expect(evaluationError("name.@count == 1", f.sales)?.message.contains("needs a collection") == true)
        #expect(evaluationError("{9223372036854775807, 1}.@sum == 1", f.sales)?.message.contains("overflow") == true)
    }

    @Test func subqueryFiltersElementsWithItsVariable() throws {
        #expect(try matches("SUBQUERY(employees, $e, $e.salary > 10).@count == 1", f.sales))
        #expect(try matches("SUBQUERY(employees, $e, $e.salary >= 10).@count > 1", f.sales))
        #expect(try matches("SUBQUERY(employees, $e, $e.salary == nil).@count == 1", f.sales))
        #expect(try matches("SUBQUERY(employees, $e, $e.salary > 10).@count == 0", f.empty))
        // Inside the subquery, bare keys refer to the element too.
        #expect(try matches("SUBQUERY(employees, $e, name BEGINSWITH 'A').@count == 1", f.sales))
        #expect(try matches("SUBQUERY(employees, $e, $e.salary > $MIN).@sum.salary == 52000", f.sales, variables: ["MIN": 100]))
        #expect(try matches("SUBQUERY(employees, $e, SUBQUERY($e.department.employees, $x, $x.salary < $e.salary).@count == 1).@count == 1", f.sales))
    }
}

@Suite struct PredicateStringOperators {
    let row = PredicateRow(["name": "Café Crème", "plain": "cafe creme", "code": "AB-12", "empty": ""])

    @Test func stringOperatorsAreCaseAndDiacriticSensitiveWithoutOptions() throws {
        #expect(try !matches("name BEGINSWITH 'cafe'", row))
        #expect(try !matches("name BEGINSWITH 'Cafe'", row))
        #expect(try matches("name BEGINSWITH 'Café'", row))
        #expect(try !matches("name CONTAINS 'creme'", row))
        #expect(try !matches("name ENDSWITH 'crème'", row))
        #expect(try !matches("name == 'café crème'", row))
        #expect(try !matches("name LIKE 'caf*'", row))
    }

    @Test func optionsFoldCaseDiacriticsOrBoth() throws {
        #expect(try matches("name BEGINSWITH[c] 'CAFÉ'", row))
        #expect(try !matches("name BEGINSWITH[c] 'cafe'", row))
        #expect(try matches("name BEGINSWITH[d] 'Cafe'", row))
        #expect(try !matches("name BEGINSWITH[d] 'cafe'", row))
        #expect(try matches("name BEGINSWITH[cd] 'cafe'", row))
        #expect(try matches("name ==[cd] plain", row))
        #expect(try matches("name ENDSWITH[cd] 'CREME'", row))
        #expect(try matches("name CONTAINS[cd] 'E CR'", row))
        #expect(try matches("name LIKE[cd] 'cafe*'", row))
        #expect(try matches("name MATCHES[cd] 'cafe.*'", row))
        #expect(PredicateText.fold("Café", options: .caseDiacriticInsensitive) == "cafe")
        #expect(PredicateText.fold("Café", options: []) == "Café")
    }

    @Test func likeMatchesTheWholeStringWithStarAndQuestionMark() throws {
        #expect(try matches("code LIKE 'AB-??'", row))
        #expect(try !matches("code LIKE 'AB-?'", row))
        #expect(try matches("code LIKE '*-*'", row))
        #expect(try matches("code LIKE '*'", row))
        #expect(try !matches("code LIKE 'B*'", row))
        #expect(try matches("empty LIKE '*'", row))
        #expect(try !matches("empty LIKE '?'", row))
        #expect(try matches("name LIKE 'Caf? Cr?me'", row))
        #expect(PredicateText.like("a*b", "a\\*b"))
        #expect(!PredicateText.like("axb", "a\\*b"))
        #expect(PredicateText.like("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*b"))
    }

    @Test func matchesIsAWholeStringRegularExpression() throws {
        #expect(try matches("code MATCHES '[A-Z]+-[0-9]+'", row))
        #expect(try !matches("code MATCHES '[0-9]+'", row))  // only part of the string
        #expect(try !matches("code MATCHES 'AB'", row))
        #expect(try matches("code MATCHES 'a|AB-12'", row))  // alternation backtracks to the whole string
        #expect(try matches("code MATCHES[c] 'ab-12'", row))
        let bad = evaluationError("code MATCHES '[unclosed'", row)
        #expect(bad?.code == .predicateEvaluation)
        #expect(bad?.message.contains("invalid regular expression") == true)
        #expect(evaluationError("code MATCHES 'a)|(b'", row)?.code == .predicateEvaluation)
    }

    @Test func emptyStringsAndSubstrings() throws {
        #expect(try matches("name CONTAINS ''", row))
        #expect(try matches("name BEGINSWITH '' AND name ENDSWITH ''", row))
        #expect(try !matches("empty CONTAINS 'a'", row))
    }
}
