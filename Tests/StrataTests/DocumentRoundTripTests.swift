import Foundation
import OrderedCollections
import Testing
@testable import Strata

/// One attribute of every type, plus a label.
let allTypesModel: ManagedObjectModel = {
    var attributes = [AttributeDescription("label", .string)]
    for type in AttributeType.allCases { attributes.append(AttributeDescription(type.rawValue, type)) }
    return try! ManagedObjectModel(entities: [EntityDescription("Sample", attributes: attributes)])
}()

/// Builds objects in a new document, saves, then checks them four ways: from the overlay
/// of the live store, from the overlay decoded at reopen, from the snapshot after
/// compaction, and from the snapshot after a second reopen. Every phase also reads the
/// whole document and must equal the first read.
private func checkInEveryPhase(
    model: ManagedObjectModel,
    build: (ManagedObjectContext) throws -> [String: ManagedObject],
    edit: ((ManagedObjectContext, [String: ManagedObject]) throws -> Void)? = nil,
    check: (String, ManagedObjectContext, [String: ManagedObjectID]) throws -> Void
) throws {
    let directory = try TemporaryDirectory()
    let url = directory.file()
    var ids: [String: ManagedObjectID] = [:]
    var reference: [RecordKey: [String: ComparableValue]] = [:]
    do {
        let stack = try DocumentStack.create(url, model: model, configuration: manualCompaction())
        let objects = try build(stack.context)
        try stack.context.save()
        if let edit {
            try edit(stack.context, objects)
            try stack.context.save()
        }
        ids = objects.mapValues(\.objectID)
        #expect(ids.values.allSatisfy { !$0.isTemporaryID })
        try check("overlay", ManagedObjectContext(coordinator: stack.coordinator), ids)
        reference = try readEverything(stack.store)
        try stack.store.close()
    }
    let uris = ids.mapValues { $0.uriRepresentation() }
    func reopened(_ phase: String, compactFirst: Bool) throws {
        let stack = try DocumentStack.open(url, model: model, configuration: manualCompaction())
        if compactFirst { try stack.store.compact() }
        let again = try uris.mapValues { try stack.coordinator.managedObjectID(forURIRepresentation: $0) }
        try check(phase, stack.context, again)
        let everything = try readEverything(stack.store)
        #expect(firstDifference(reference, everything) == nil, "\(phase): \(firstDifference(reference, everything) ?? "")")
        try stack.store.close()
        #expect(try integrityCheck(url) == "ok", "\(phase)")
    }
    try reopened("reopened overlay", compactFirst: false)
    try reopened("compacted", compactFirst: true)
    try reopened("reopened snapshot", compactFirst: false)
    #expect(try sqlRows(url, "SELECT COUNT(*) FROM strata_segment").first?.first == .integer(edit == nil ? 1 : 2))
}

/// Finds saved objects by name in a context.
private struct Lookup {
    let context: ManagedObjectContext
    let ids: [String: ManagedObjectID]

    func object(_ name: String) throws -> ManagedObject {
        guard let id = ids[name] else { throw StrataError(.invalidArgument, "no object named \(name)") }
        return try context.existingObject(with: id)
    }
    func ordered(_ name: String, _ key: String) throws -> [String] {
        try object(name).objects(forKey: key).map(displayName)
    }
    func unordered(_ name: String, _ key: String) throws -> Set<String> { Set(try ordered(name, key)) }
}

/// Evaluates `actual` outside the `#expect` macro (which cannot expand nested throwing
/// calls) and expects it to equal `expected`.
func expectEqual<T: Equatable>(_ actual: @autoclosure () throws -> T, _ expected: T, _ note: Comment,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
    let value = try actual()
    #expect(value == expected, note, sourceLocation: sourceLocation)
}

private func displayName(_ object: ManagedObject) throws -> String {
    try object.string(object.entity.slot(forKey: "firstName") != nil ? "firstName" : "name") ?? "?"
}

private func names(_ objects: Set<ManagedObject>) throws -> Set<String> {
    Set(try objects.map { try displayName($0) })
}

@Suite struct DocumentRoundTrip {
    static let decimal = Decimal(string: "12345678901234567890.123456789012345678", locale: Locale(identifier: "en_US_POSIX"))!
    static let tinyDecimal = Decimal(string: "-0.000000000000000000000000000001", locale: Locale(identifier: "en_US_POSIX"))!
    static let date = Date(timeIntervalSinceReferenceDate: 765_432_109.123_456_7)

    static let fullValues: [String: PropertyValue] = [
        "integer16": .integer(Int64(Int16.min)), "integer32": .integer(Int64(Int32.max)), "integer64": .integer(Int64.min),
        "decimal": .decimal(decimal), "double": .double(Double.pi), "float": .double(Double(Float(1.25))),
        "string": .string("Grüße, 世界 🌍 \"quoted\" 'single' \\ back"), "boolean": .boolean(true),
        "date": .date(date), "binaryData": .data(Data((0...255).map(UInt8.init))),
        "uuid": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "uri": .uri(URL(string: "https://example.com/a%20b?q=1&r=%C3%A9#frag")!),
        "transformable": .data(Data(#"{"tags":["a","b"],"n":1}"#.utf8)),
    ]
    static let zeroValues: [String: PropertyValue] = [
        "integer16": .integer(0), "integer32": .integer(0), "integer64": .integer(0), "decimal": .decimal(0),
        "double": .double(0), "float": .double(0), "string": .string(""), "boolean": .boolean(false),
        "date": .date(Date(timeIntervalSinceReferenceDate: 0)), "binaryData": .data(Data()),
        "uuid": .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        "uri": .uri(URL(string: "a:")!), "transformable": .data(Data()),
    ]
    static let otherValues: [String: PropertyValue] = [
        "integer16": .integer(Int64(Int16.max)), "integer32": .integer(Int64(Int32.min)), "integer64": .integer(Int64.max),
        "decimal": .decimal(tinyDecimal), "double": .double(-1e308), "float": .double(-0.5), "string": .string("x"),
        "boolean": .boolean(false), "date": .date(Date(timeIntervalSinceReferenceDate: -978_307_200.000_5)),
        "binaryData": .data(Data([0])), "uuid": .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
        "uri": .uri(URL(fileURLWithPath: "/tmp/a b")), "transformable": .data(Data("null".utf8)),
    ]

    @Test func everyAttributeTypeRoundTripsExactlyWithNullZeroAndEmptyKeptApart() throws {
        try checkInEveryPhase(model: allTypesModel) { context in
            var objects: [String: ManagedObject] = [:]
            for (label, values) in [("full", Self.fullValues), ("zero", Self.zeroValues), ("other", Self.otherValues), ("null", [:])] {
                let sample = try context.insertObject(forEntityName: "Sample")
                try sample.setValue(.string(label), forKey: "label")
                for (key, value) in values { try sample.setValue(value, forKey: key) }
                objects[label] = sample
            }
            return objects
        } check: { phase, context, ids in
            for (label, values) in [("full", Self.fullValues), ("zero", Self.zeroValues), ("other", Self.otherValues), ("null", [:])] {
                let sample = try context.existingObject(with: try #require(ids[label]))
                #expect(try sample.value(forKey: "label") == .string(label), "\(phase)")
                for type in AttributeType.allCases {
                    let expected = values[type.rawValue] ?? .null
                    let actual = try sample.value(forKey: type.rawValue)
                    #expect(actual == expected, "\(phase) \(label).\(type.rawValue): \(actual) != \(expected)")
                    if case .decimal(let decimal) = actual, case .decimal(let wanted) = expected {
                        #expect(decimal.description == wanted.description, "\(phase): decimal digits")
                    }
                }
            }
        }
    }

    @Test func stringsWithEmbeddedNulCharactersSurviveCompaction() throws {
        try checkInEveryPhase(model: allTypesModel) { context in
            let sample = try context.insertObject(forEntityName: "Sample")
            try sample.setValue(.string("before\u{0}after"), forKey: "string")
            return ["nul": sample]
        } check: { phase, context, ids in
            let sample = try context.existingObject(with: try #require(ids["nul"]))
            #expect(try sample.value(forKey: "string") == .string("before\u{0}after"), "\(phase)")
        }
    }

    @Test func toOneOneToManyManyToManyAndReflexiveRelationshipsRoundTrip() throws {
        try checkInEveryPhase(model: sharedExampleModel) { context in
            let research = try insertNamed("Department", "Research", in: context)
            let sales = try insertNamed("Department", "Sales", in: context)
            var people: [String: ManagedObject] = [:]
            for name in ["boss", "ada", "alan", "grace", "loner"] {
                let employee = try context.insertObject(forEntityName: "Employee")
                try employee.setValue(.string(name), forKey: "firstName")
                try employee.setValue(.string("X"), forKey: "lastName")
                people[name] = employee
            }
            let engine = try insertNamed("Project", "Engine", in: context)
            let compiler = try insertNamed("Project", "Compiler", in: context)
            for name in ["boss", "ada", "alan"] { try people[name]!.setObject(research, forKey: "department") }
            try people["grace"]!.setObject(sales, forKey: "department")
            for name in ["ada", "alan", "grace"] { try people[name]!.setObject(people["boss"], forKey: "manager") }
            try people["ada"]!.mutableSetValue(forKey: "projects").set([engine, compiler])
            try compiler.mutableSetValue(forKey: "members").add(people["grace"]!)
            return people.merging(["research": research, "sales": sales, "engine": engine, "compiler": compiler]) { a, _ in a }
        } edit: { context, objects in
            // Move alan to sales, drop ada from engine, and delete grace (nullify everywhere).
            try objects["alan"]!.setObject(objects["sales"], forKey: "department")
            try objects["engine"]!.mutableSetValue(forKey: "members").remove(objects["ada"]!)
            context.delete(objects["grace"]!)
        } check: { phase, context, ids in
            let lookup = Lookup(context: context, ids: ids)
            let note = Comment(rawValue: phase)
            try expectEqual(try names(lookup.object("research").relatedSet("employees")), ["boss", "ada"], note)
            try expectEqual(try names(lookup.object("sales").relatedSet("employees")), ["alan"], note)
            try expectEqual(try lookup.object("alan").related("department")?.string("name"), "Sales", note)
            try expectEqual(try lookup.object("loner").related("department"), nil, note)
            try expectEqual(try names(lookup.object("boss").relatedSet("directReports")), ["ada", "alan"], note)
            try expectEqual(try lookup.object("ada").related("manager")?.string("firstName"), "boss", note)
            try expectEqual(try lookup.object("boss").related("manager"), nil, note)
            try expectEqual(try names(lookup.object("ada").relatedSet("projects")), ["Compiler"], note)
            try expectEqual(try names(lookup.object("compiler").relatedSet("members")), ["ada"], note)
            #expect(try lookup.object("engine").relatedSet("members").isEmpty, note)
            #expect(context.coordinator.persistentStores.count == 1)
            #expect(throws: StrataError.self, note) { try lookup.object("grace") }
        }
    }

    @Test func orderedHierarchyAndInverselessRelationshipsRoundTrip() throws {
        try checkInEveryPhase(model: documentKindsModel) { context in
            var objects: [String: ManagedObject] = [:]
            for name in ["mix", "chill"] { objects[name] = try insertNamed("Playlist", name, in: context) }
            for name in ["t1", "t2", "t3", "t4"] { objects[name] = try insertNamed("Track", name, in: context) }
            objects["shelf"] = try insertNamed("Shelf", "shelf", in: context)
            objects["other"] = try insertNamed("Shelf", "other", in: context)
            for name in ["b1", "b2"] { objects[name] = try insertNamed("Book", name, in: context) }
            for name in ["f1", "f2"] { objects[name] = try insertNamed("Film", name, in: context) }
            objects["pat"] = try insertNamed("Person", "pat", in: context)
            objects["sam"] = try insertNamed("Person", "sam", in: context)
            for name in ["root", "c1", "c2", "c3"] { objects[name] = try insertNamed("Tag", name, in: context) }
            try objects["mix"]!.mutableSetValue(forKey: "tracks").set(["t3", "t1", "t4", "t2"].map { objects[$0]! })
            try objects["chill"]!.mutableSetValue(forKey: "tracks").set(["t2", "t3"].map { objects[$0]! })
            try objects["shelf"]!.mutableSetValue(forKey: "items").set(["b1", "f1", "f2"].map { objects[$0]! })
            try objects["b2"]!.setObject(objects["other"], forKey: "shelf")
            try objects["b1"]!.setObject(objects["pat"], forKey: "owner")
            try objects["f2"]!.setObject(objects["pat"], forKey: "owner")
            try objects["f1"]!.setObject(objects["sam"], forKey: "owner")
            try objects["shelf"]!.setObject(objects["f2"], forKey: "favorite")
            try objects["b1"]!.mutableSetValue(forKey: "bookmarks").set([objects["other"]!, objects["shelf"]!])
            try objects["root"]!.mutableSetValue(forKey: "children").set(["c3", "c1", "c2"].map { objects[$0]! })
            return objects
        } edit: { _, objects in
            // Reorder, insert in the middle, and move a child.
            try objects["mix"]!.mutableSetValue(forKey: "tracks").set(["t2", "t4", "t1"].map { objects[$0]! })
            try objects["c1"]!.setObject(objects["c3"], forKey: "parent")
        } check: { phase, context, ids in
            let lookup = Lookup(context: context, ids: ids)
            let note = Comment(rawValue: phase)
            try expectEqual(try lookup.ordered("mix", "tracks"), ["t2", "t4", "t1"], note)
            try expectEqual(try lookup.ordered("chill", "tracks"), ["t2", "t3"], note)
            try expectEqual(try lookup.unordered("t2", "playlists"), ["mix", "chill"], note)
            try expectEqual(try lookup.unordered("t3", "playlists"), ["chill"], note)
            try expectEqual(try lookup.unordered("shelf", "items"), ["b1", "f1", "f2"], note)
            try expectEqual(try lookup.object("shelf").objects(forKey: "items").map(\.entity.name).sorted(), ["Book", "Film", "Film"], note)
            try expectEqual(try lookup.unordered("other", "items"), ["b2"], note)
            try expectEqual(try lookup.unordered("pat", "books"), ["b1"], note)
            try expectEqual(try lookup.unordered("pat", "films"), ["f2"], note)
            try expectEqual(try lookup.unordered("sam", "films"), ["f1"], note)
            try expectEqual(try lookup.unordered("sam", "books"), [], note)
            try expectEqual(try lookup.object("f1").related("owner")?.string("name"), "sam", note)
            try expectEqual(try lookup.object("shelf").related("favorite")?.objectID, ids["f2"], note)
            try expectEqual(try lookup.object("shelf").related("favorite")?.entity.name, "Film", note)
            try expectEqual(try lookup.unordered("b1", "bookmarks"), ["other", "shelf"], note)
            try expectEqual(try lookup.ordered("root", "children"), ["c3", "c2"], note)
            try expectEqual(try lookup.ordered("c3", "children"), ["c1"], note)
            try expectEqual(try lookup.object("c1").related("parent")?.string("name"), "c3", note)
        }
    }
}
