import Foundation
import Testing
@testable import Strata

@Suite struct FetchSortTests {
    private func sorted(_ values: [PropertyValue], _ descriptor: FetchSortDescriptor) -> [PropertyValue] {
        values.sorted { descriptor.compare($0, $1) < 0 }
    }

    @Test func nullSortsFirstAscendingAndLastDescending() {
        let values: [PropertyValue] = [3, .null, 1, .double(.nan), 2]
        let up = sorted(values, FetchSortDescriptor("x"))
        #expect(up.prefix(2).allSatisfy { PredicateValueRules.isNull($0) })
        #expect(Array(up.suffix(3)) == [1, 2, 3])
        let down = sorted(values, FetchSortDescriptor("x", ascending: false))
        #expect(Array(down.prefix(3)) == [3, 2, 1])
        #expect(down.suffix(2).allSatisfy { PredicateValueRules.isNull($0) })
    }

    @Test func numbersCompareNumericallyAcrossKinds() {
        let values: [PropertyValue] = [.double(2.5), .integer(3), .decimal(Decimal(string: "2.25")!), .boolean(true), .integer(-7)]
        #expect(sorted(values, FetchSortDescriptor("x")) == [.integer(-7), .boolean(true), .decimal(Decimal(string: "2.25")!), .double(2.5), .integer(3)])
        #expect(FetchSortDescriptor.compareValues(.integer(Int64.max), .double(9_223_372_036_854_775_807.0)) == -1)
    }

    @Test func binaryStringOrderIsByUTF8Bytes() {
        let values: [PropertyValue] = ["b", "a", "Z", "é", "e\u{301}", "B"]
        #expect(sorted(values, FetchSortDescriptor("x")) == ["B", "Z", "a", "b", "e\u{301}", "é"])
    }

    @Test func caseInsensitiveOrderFoldsCaseThenBreaksTiesByBytes() {
        let values: [PropertyValue] = ["b", "a", "Z", "B", "A"]
        #expect(sorted(values, FetchSortDescriptor("x", comparison: .caseInsensitive)) == ["A", "a", "B", "b", "Z"])
    }

    @Test func localizedOrderFoldsCaseAndDiacritics() {
        let values: [PropertyValue] = ["f", "É", "e", "d", "é", "E"]
        #expect(sorted(values, FetchSortDescriptor("x", comparison: .localized)) == ["d", "E", "e", "É", "é", "f"])
        // Binary puts accented letters after every ASCII letter.
        #expect(sorted(values, FetchSortDescriptor("x")) == ["E", "d", "e", "f", "É", "é"])
    }

    @Test func datesSortByTimeAndDataByBytes() {
        let early = Date(timeIntervalSinceReferenceDate: -5), late = Date(timeIntervalSinceReferenceDate: 100)
        #expect(sorted([.date(late), .date(early)], FetchSortDescriptor("x")) == [.date(early), .date(late)])
        #expect(FetchSortDescriptor.compareValues(.data(Data([1, 2])), .data(Data([1, 2, 0]))) == -1)
        #expect(FetchSortDescriptor.compareValues(.data(Data([2])), .data(Data([1, 9]))) == 1)
    }

    @Test func tiesComeInObjectIDOrderWithTemporaryIDsLast() throws {
        let entity = try sharedExampleModel.entity(named: "Employee")
        let a = ManagedObjectID(entity: entity, storeTag: 1, primaryKey: 2)
        let b = ManagedObjectID(entity: entity, storeTag: 1, primaryKey: 10)
        let temporary = ManagedObjectID.temporary(for: entity)
        #expect(FetchSortDescriptor.compareIDs(a, b) == -1)
        #expect(FetchSortDescriptor.compareIDs(temporary, b) == 1)
        #expect(FetchSortDescriptor.compare((b, [1]), (a, [1]), by: [FetchSortDescriptor("x")]) == 1)
        #expect(FetchSortDescriptor.compare((b, [1]), (a, [2]), by: [FetchSortDescriptor("x")]) == -1)
    }

    @Test func fetchSortsNullSalariesFirstAscendingAndLastDescending() throws {
        let fixture = try FetchFixture()
        let up = try employeesRequest(sortedBy: [FetchSortDescriptor("salary")])
        #expect(try lastNames(fixture.context.fetch(up)) == ["dijkstra", "Liskov", "Turing", "Lovelace", "Hopper"])
        let down = try employeesRequest(sortedBy: [FetchSortDescriptor("salary", ascending: false)])
        #expect(try lastNames(fixture.context.fetch(down)) == ["Hopper", "Lovelace", "Turing", "Liskov", "dijkstra"])
    }

    @Test func fetchSortsStringsBinaryOrCaseInsensitively() throws {
        let fixture = try FetchFixture()
        let binary = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName")])
        #expect(try lastNames(fixture.context.fetch(binary)) == ["Hopper", "Liskov", "Lovelace", "Turing", "dijkstra"])
        let folded = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName", comparison: .caseInsensitive)])
        #expect(try lastNames(fixture.context.fetch(folded)) == ["dijkstra", "Hopper", "Liskov", "Lovelace", "Turing"])
    }

    @Test func fetchSortsByLocalizedFoldingWithPendingObjectsInterleaved() throws {
        let fixture = try FetchFixture()
        try fixture.insertEmployee("X", "Émile", salary: 1, department: nil)
        try fixture.insertEmployee("Y", "eve", salary: 1, department: nil)
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("lastName", comparison: .localized)])
        #expect(try lastNames(fixture.context.fetch(request)) == ["dijkstra", "Émile", "eve", "Hopper", "Liskov", "Lovelace", "Turing"])
    }

    @Test func fetchSortsByMultipleKeysAndToOneKeyPaths() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest(sortedBy: [
            FetchSortDescriptor("department.name", ascending: false), FetchSortDescriptor("firstName"),
        ])
        // Sales (Edsger, Grace), R&D (Ada, Alan), then no department (NULL last descending).
        #expect(try lastNames(fixture.context.fetch(request)) == ["dijkstra", "Hopper", "Lovelace", "Turing", "Liskov"])
        request.sortDescriptors = [FetchSortDescriptor("department.name"), FetchSortDescriptor("salary", ascending: false)]
        #expect(try lastNames(fixture.context.fetch(request)) == ["Liskov", "Lovelace", "Turing", "Hopper", "dijkstra"])
    }

    @Test func sortingOnAToOneOrdersByTheDestinationsKey() throws {
        let fixture = try FetchFixture()
        let request = try employeesRequest(sortedBy: [FetchSortDescriptor("department"), FetchSortDescriptor("lastName")])
        // R&D was inserted first, so it has the smaller key; NULL first.
        #expect(try lastNames(fixture.context.fetch(request)) == ["Liskov", "Lovelace", "Turing", "Hopper", "dijkstra"])
    }

    @Test func aToOneKeyPathSortSeesARelatedPendingChange() throws {
        let fixture = try FetchFixture()
        try fixture.department("R&D").setValue(.string("Zeta"), forKey: "name")
        let request = try employeesRequest("department != nil", sortedBy: [FetchSortDescriptor("department.name"), FetchSortDescriptor("lastName")])
        #expect(try lastNames(fixture.context.fetch(request)) == ["Hopper", "dijkstra", "Lovelace", "Turing"])
    }
}
