import Foundation
import StrataModels
import StrataTestSupport
import Testing

/// Derived attributes (`@Attribute(derivation:)`), composite attributes (`@Composite`
/// structs) and fetched properties (`#FetchedProperty`) declared with the macros: the same model as the JSON one, documents that open
/// with either, typed reads and writes, and the model's refusals.
@Suite("Declared derived and composite attributes")
struct DeclaredDerivedCompositeTests {
    @Test func theDeclaredModelIsTheJSONModel() throws {
        let declared = try branchModel()
        let json = try ManagedObjectModel(jsonData: Data(branchJSON.utf8))
        #expect(declared.versionHash == json.versionHash)
        let branch = try declared.entity(named: "Branch")
        #expect(branch.attributesByName["headcount"]?.derivation?.predicateFormat == "staff.@count")
        let address = try #require(branch.composite(named: "address"))
        #expect(address.typeName == "PostalAddress")
        #expect(address.elements.map(\.name) == ["city", "zip", "floor"])
        #expect(address.elements.map(\.isOptional) == [false, true, false])
        #expect(address.elements[2].defaultValue == .integer(1))
        #expect(address.elements[1].maxLength == 4 && address.elements[1].regularExpression == "[0-9]*")
        #expect(address.composites.map(\.name) == ["geo"])
        #expect(address.composites.first?.typeName == "Geo")
        #expect(branch.fetchedProperties == json.entitiesByName["Branch"]?.fetchedProperties)
        #expect(branch.attributesByName["address.geo.lat"]?.attributeType == .double)
    }

    /// A branch in Oslo with two clerks, written with typed objects.
    private func writeDeclared(at url: URL) throws {
        let stack = try DocumentStack.create(url, model: try branchModel())
        let context = stack.context
        let oslo = try context.insert(Branch.self)
        oslo.name = "Oslo"
        oslo.address = PostalAddress(city: "Oslo", zip: "0150", floor: 4, geo: Geo(lat: 59.91, lon: 10.75))
        for (name, pay) in [("Åse", 700), ("Bjørn", 500)] {
            let clerk = try context.insert(Clerk.self)
            (clerk.name, clerk.pay, clerk.branch) = (name, Int64(pay), oslo)
        }
        try context.save()
        #expect(oslo.headcount == 2 && oslo.payroll == 1200)
        #expect(try oslo.wellPaid.map(\.name) == ["Åse"])
        try stack.store.close()
    }

    @Test func aDocumentMadeWithTheDeclaredModelOpensWithTheJSONModel() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try writeDeclared(at: url)
        let json = try ManagedObjectModel(jsonData: Data(branchJSON.utf8))
        let stack = try DocumentStack.open(url, model: json)
        defer { try? stack.store.close() }
        let branch = try #require(try stack.context.fetch(FetchRequest(entityName: "Branch")).first)
        #expect(try branch.value(forKey: "headcount") == .integer(2))
        #expect(try branch.value(forKey: "payroll") == .integer(1200))
        #expect(try branch.value(forKey: "address.city") == .string("Oslo"))
        #expect(try branch.value(forKey: "address.floor") == .integer(4))
        #expect(try branch.value(forKey: "address.geo.lat") == .double(59.91))
        let clerks = try stack.context.fetch(FetchRequest(entityName: "Clerk", predicate: FetchPredicate(format: "branchName == 'Oslo' AND searchName == 'ase'")))
        #expect(clerks.count == 1)
    }

    @Test func aDocumentMadeWithTheJSONModelOpensWithTheDeclaredModel() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try DocumentStack.create(url, model: try ManagedObjectModel(jsonData: Data(branchJSON.utf8)))
            let bergen = try stack.context.insertObject(forEntityName: "Branch")
            try bergen.setValue("Bergen", forKey: "name")
            try bergen.setCompositeValue(["city": "Bergen", "floor": .integer(2), "geo.lat": .double(60.39), "geo.lon": .double(5.32)],
                                         forKey: "address")
            let clerk = try stack.context.insertObject(forEntityName: "Clerk")
            try clerk.setValue("Cato", forKey: "name")
            try clerk.setValue(.integer(300), forKey: "pay")
            try clerk.setObject(bergen, forKey: "branch")
            try stack.context.save()
            try stack.store.close()
        }
        let stack = try DocumentStack.open(url, model: try branchModel())
        defer { try? stack.store.close() }
        let bergen = try #require(try stack.context.fetch(FetchRequest<Branch>()).first)
        #expect(bergen.address == PostalAddress(city: "Bergen", zip: nil, floor: 2, geo: Geo(lat: 60.39, lon: 5.32)))
        #expect(bergen.headcount == 1 && bergen.payroll == 300)
        let cato = try #require(bergen.staff.first)
        #expect(cato.branchName == "Bergen" && cato.searchName == "cato")
        // The typed classes also register with the JSON model itself: they fit it.
        let json = try ManagedObjectModel(jsonData: Data(branchJSON.utf8))
        try json.register(Branch.self, forEntityName: "Branch")
        try json.register(Clerk.self, forEntityName: "Clerk")
    }

    @Test func aCompositeIsWrittenWholeAndANilOneLeavesItsElementsNull() throws {
        let stack = try DocumentStack(model: try branchModel())
        let branch = try stack.context.insert(Branch.self)
        branch.name = "Tromsø"
        // A new object's elements hold their defaults (floor 1, lat and lon 0), the rest null.
        #expect(branch.address == PostalAddress(city: "", zip: nil, floor: 1, geo: Geo(lat: 0, lon: 0)))
        let tromso = PostalAddress(city: "Tromsø", zip: "9008", geo: Geo(lat: 69.65, lon: 18.96))
        branch.address = tromso
        try stack.context.save()
        #expect(try branch.value(forKey: "address.zip") == .string("9008"))
        #expect(try branch.value(forKey: "address.geo.lon") == .double(18.96))
        #expect(branch.address == tromso)
        // A nil nested composite leaves its elements null; one undo step reverts the whole value.
        branch.address = PostalAddress(city: "Bodø", zip: nil, floor: 3, geo: nil)
        #expect(try branch.value(forKey: "address.geo.lat") == .null)
        #expect(branch.address == PostalAddress(city: "Bodø", zip: nil, floor: 3, geo: nil))
        try stack.context.undoManager?.undo()
        #expect(branch.address == tromso)
        // An element's own constraints are checked at save, naming it.
        branch.address = PostalAddress(city: "Tromsø", zip: "90", geo: Geo(lat: 69.65, lon: 18.96))
        let short = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(short.problems.contains { $0.key == "address.zip" })
        // nil clears every element; the required city then fails the save, naming it.
        branch.address = nil
        #expect(branch.address == nil)
        let error = try #require(throws: StrataError.self) { try stack.context.save() }
        #expect(error.problems.contains { $0.key == "address.city" })
    }

    @Test func writingADerivedPropertyIsRefusedAtTheNextSave() throws {
        let stack = try DocumentStack(model: try branchModel())
        let branch = try stack.context.insert(Branch.self)
        branch.name = "Oslo"
        branch.address = PostalAddress(city: "Oslo", geo: Geo(lat: 59.91, lon: 10.75))
        branch.headcount = 40
        #expect(branch.headcount == 0)
        let error = try #require(stack.context.typedAccessErrors.first)
        #expect(error.context.key == "headcount")
        #expect(throws: StrataError.self) { try stack.context.save() }
    }

    @Test func aDerivationThatDoesNotParseOrReachIsAModelErrorNamingIt() throws {
        let text = try #require(throws: StrataError.self) {
            _ = try ManagedObjectModel(types: [BadDerivationText.self])
        }
        #expect(text.code == .invalidModel)
        #expect(text.problems.contains { $0.entityName == "BadDerivationText" && $0.key == "total" && $0.reason.contains("does not parse") })
        let path = try #require(throws: StrataError.self) {
            _ = try ManagedObjectModel(types: [BadDerivationPath.self])
        }
        #expect(path.code == .invalidModel)
        #expect(path.problems.contains { $0.key == "missing" && $0.reason.contains("no attribute or relationship 'nowhere'") })
    }

    @Test func aNonOptionalCompositeAndAnElementThatCannotBeStoredAreModelErrors() throws {
        let error = try #require(throws: StrataError.self) {
            _ = try ManagedObjectModel(types: [BadComposites.self])
        }
        #expect(error.code == .invalidModel)
        #expect(error.problems.contains { $0.key == "required" && $0.reason.contains("declared optional") })
        #expect(error.problems.contains { $0.key == "odd.handler" && $0.reason.contains("cannot be stored") })
    }
}

@Entity
final class BadDerivationText: ManagedObject {
    var amount: Int64 = 0
    @Attribute(derivation: "amount +") var total: Int64?
}

@Entity
final class BadDerivationPath: ManagedObject {
    @Attribute(derivation: "nowhere.name") var missing: String?
}

/// A composite with an element of a type Strata cannot store.
@Composite
struct OddComposite {
    var label: String?
    var handler: NotStorable?
}

final class NotStorable: Sendable {}

@Entity
final class BadComposites: ManagedObject {
    var required: PostalAddress = PostalAddress(city: "Oslo")
    var odd: OddComposite?
}
