import Foundation
import Testing
@testable import Strata

/// Hand-picked corner cases (NULL elements, NULL to-ones before to-manys, decimals against
/// doubles, big integers against doubles, options on UUIDs and URIs, literal collections
/// on the left) compared with the evaluator on several data sets.
@Suite struct SQLTranslationCases {
    static let cases: [(entity: String, format: String)] = [
        ("Department", "ANY employees.manager == nil"),
        ("Department", "ALL employees.manager.salary > 1000"),
        ("Department", "employees.manager.directReports.@count > 3"),
        ("Department", "ANY employees.manager.directReports.salary == nil"),
        ("Department", "SUBQUERY(employees, $e, $e.manager.department == $e.department).@count >= 1"),
        ("Department", "employees.@count == employees.manager.@count"),
        ("Department", "employees.@avg.bonus > 0"),
        ("Department", "employees.@sum.bonus == 0"),
        ("Department", "employees.@max.bonus > 100 OR employees.@min.bonus < -1"),
        ("Department", "employees.@min.lastName < 'M'"),
        ("Department", "employees.@avg.rating >= 1.5"),
        ("Department", "employees.@sum.salary > 60000"),
        ("Department", "NOT (employees.@max.startDate > CAST(0, 'NSDate'))"),
        ("Project", "members.department.@count > 1"),
        ("Project", "ANY members.department == nil"),
        ("Project", "NONE members.department.name BEGINSWITH[c] 's'"),
        ("Project", "ANY members.projects.name ==[c] 'zeta'"),
        ("Employee", "salary IN department.employees.salary"),
        ("Employee", "NOT (salary IN department.employees.salary)"),
        ("Employee", "NOT (lastName IN directReports.lastName)"),
        ("Employee", "NOT (lastName IN[c] manager.directReports.lastName)"),
        ("Employee", "department.employees.@count == 0"),
        ("Employee", "NOT (ANY manager.directReports.salary > 5000)"),
        ("Employee", "SUBQUERY(projects, $p, ANY $p.members.salary > 50000).@count > 0"),
        ("Employee", "SUBQUERY(directReports, $d, SUBQUERY($d.projects, $p, $p.name BEGINSWITH 'E').@count > 0).@count > 0"),
        ("Employee", "bonus > 0.1"), ("Employee", "bonus == 0.1"), ("Employee", "NOT bonus == 0.1"),
        ("Employee", "bonus >= CAST('0.1', 'NSDecimalNumber')"), ("Employee", "bonus < 1"),
        ("Employee", "salary > 9007199254740992.0"), ("Employee", "salary == 9007199254740992.0"),
        ("Employee", "rating == 3"), ("Employee", "salary == rating"), ("Employee", "rating > bonus"),
        ("Employee", "ANY {1000, 5000} == salary"), ("Employee", "{1000, 5000, nil} CONTAINS salary"),
        ("Employee", "NOT salary IN {1000, nil}"), ("Employee", "salary IN {}"), ("Employee", "NOT salary IN {}"),
        ("Employee", "badge == '6ba7b810-9dad-11d1-80b4-00c04fd430c8'"),
        ("Employee", "badge > '00000000-0000-0000-0000-000000000001'"),
        ("Employee", "homepage ==[c] 'HTTPS://example.com/a'"), ("Employee", "homepage == 'https://example.com/a'"),
        ("Employee", "manager == SELF"), ("Employee", "manager != SELF"),
        ("Employee", "ANY manager.directReports == SELF"), ("Employee", "department.employees CONTAINS SELF"),
        ("Employee", "NOT (department.employees CONTAINS SELF)"),
        ("Employee", "ALL directReports.active == YES"), ("Employee", "NOT ALL projects.deadline > CAST(0, 'NSDate')"),
        ("Employee", "firstName LIKE[cd] 'e*'"), ("Employee", "lastName LIKE '*\\\\**'"), ("Employee", "firstName MATCHES[c] 'é.*'"),
        ("Employee", "firstName MATCHES[cd] 'e.*'"), ("Employee", "firstName ==[d] 'emile'"), ("Employee", "firstName < 'a'"),
        ("Employee", "firstName BETWEEN[c] {'a', 'f'}"), ("Employee", "firstName == ''"), ("Employee", "email != ''"),
        ("Employee", "ANY salary > 1000"), ("Employee", "ALL salary > 1000"), ("Employee", "NONE salary == nil"),
        ("Employee", "ALL manager.salary == nil"), ("Employee", "ANY department == nil"), ("Employee", "NONE department.name == nil"),
        ("Employee", "projects.members.@sum.salary > 100000"), ("Employee", "ANY projects.members.projects.name == 'Zeta'"),
        ("Employee", "photo == CAST('', 'NSData')"), ("Employee", "photo < CAST('AQI=', 'NSData')"),
        ("Employee", "startDate BETWEEN {CAST(0, 'NSDate'), CAST(86400.5, 'NSDate')}"),
        ("Employee", "manager.manager.department.name BEGINSWITH[cd] 'r'"),
        ("Employee", "active == NO OR active == nil"), ("Employee", "active > 0"), ("Employee", "NOT active == YES"),
        ("Employee", "directReports.@count > 0 AND NOT (ANY directReports.salary > salary)"),
        ("Employee", "ALL directReports.salary < salary"),
        ("Employee", "manager.salary BETWEEN {salary, 100000}"),
        // BEGINSWITH seeks an index range on its first ASCII character; a Kelvin sign is
        // canonically a K, a q with an accent folds to q under [d].
        ("Employee", "firstName BEGINSWITH[c] 'k'"), ("Employee", "firstName BEGINSWITH 'K'"),
        ("Employee", "firstName BEGINSWITH 'k'"), ("Employee", "firstName BEGINSWITH[d] 'q'"),
        ("Employee", "firstName BEGINSWITH[cd] 'E'"), ("Employee", "firstName BEGINSWITH '\u{7F}'"),
        ("Employee", "firstName BEGINSWITH ''"), ("Employee", "NOT firstName BEGINSWITH[c] 'A'"),
        ("Employee", "lastName BEGINSWITH[c] 'q' AND salary > 1000"),
    ]

    @Test(arguments: [UInt64(5), 6, 7, 8])
    func cornerCasesMatchTheEvaluator(seed: UInt64) throws {
        let dataset = try SQLTestDataset(seed: seed)
        let translator = SQLPredicateTranslator(schema: dataset.schema, storeTag: SQLTestDataset.storeTag)
        for (name, format) in Self.cases {
            let entity = try #require(dataset.model.entitiesByName[name])
            for sort in [[], [FetchSortDescriptor("\(name == "Employee" ? "lastName" : "name")", ascending: false, comparison: .localized)]] {
                let request = StoreFetchRequest(entity: entity, predicate: try FetchPredicate(format: format), sortDescriptors: sort)
                let expected = try dataset.expected(request)
                let (actual, plan) = try dataset.actual(request, translator: translator)
                #expect(actual == expected, "seed \(seed): \(format)\n\(plan.select)")
                #expect(plan.residual == nil, "\(format)")
            }
        }
    }
}
