import Foundation
import Strata

/// The predicate parser, the evaluator over objects in memory, and the translation to SQL
/// (a fetch from a document with unsaved changes merged in).
enum PredicateFuzzing {
    /// `%@` takes these in turn.
    static let values: [PredicateArgument] = [
        .value(.string("Lovelace")), .value(.integer(60_000)), .list([.integer(1), .integer(2)]),
        .value(.date(Date(timeIntervalSince1970: 0))), .value(.null), .value(.boolean(true)), .value(.double(1.5)),
    ]
    /// `%K` takes these in turn.
    static let keys = ["salary", "department.name", "lastName", "projects", "SELF"]

    /// An argument for each placeholder outside quotes, of the kind its letter asks for (the
    /// parser refuses a format whose placeholders and arguments do not match).
    static func arguments(for text: String) -> [PredicateArgument] {
        var arguments: [PredicateArgument] = []
        var quote: Character?
        var percent = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            if percent {
                percent = false
                switch character {
                case "@": arguments.append(values[arguments.count % values.count])
                case "K": arguments.append(.key(keys[arguments.count % keys.count]))
                case "d", "i", "l": arguments.append(.value(.integer(Int64(arguments.count) * 1000)))
                case "f", "g", "e", ".": arguments.append(.value(.double(Double(arguments.count) + 0.25)))
                case "%": break
                default: arguments.append(values[arguments.count % values.count])
                }
            } else if character == "%" {
                percent = true
            } else if character == "'" || character == "\"" {
                quote = character
            }
        }
        return arguments
    }
    /// `$NAME` variables.
    static let variables: [String: PropertyValue] = [
        "SALARY": .integer(70_000), "NAME": .string("Hopper"), "LIST": .string("a"), "DATE": .date(Date(timeIntervalSince1970: 1)),
    ]

    private final class Fixture {
        let context: ManagedObjectContext
        let objects: [ManagedObject]

        init() throws {
            let url = try FuzzScratch.folder().appendingPathComponent("predicate.strata")
            let model = ManagedObjectModel.employeesExample()
            let store = try DocumentStore(creatingAt: url, model: model, overwrite: true)
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addStore(store)
            context = ManagedObjectContext(coordinator: coordinator)
            var objects = try EmployeesFixture.populate(context)
            try context.save()
            // One unsaved object and one unsaved change: fetches merge them with the SQL rows.
            let pending = try context.insertObject(forEntityName: "Employee")
            try pending.setValue(.string("Pending"), forKey: "firstName")
            try pending.setValue(.string("Unsaved"), forKey: "lastName")
            try objects[3].setValue(.integer(99_000), forKey: "salary")
            objects.append(pending)
            self.objects = objects
        }
    }

    nonisolated(unsafe) private static var fixture: Fixture?

    static func run(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        let predicate = try FetchPredicate(format: text, argumentArray: arguments(for: text))
        _ = predicate.predicateFormat
        let fixture = try fixture ?? Fixture()
        Self.fixture = fixture
        var firstError: (any Error)?
        for object in fixture.objects {
            do {
                _ = try predicate.evaluate(with: object, variables: variables)
            } catch {
                firstError = firstError ?? error
            }
        }
        let substituted = try predicate.withSubstitutionVariables(variables)
        for entity in ["Employee", "Department", "Project"] {
            do {
                _ = try fixture.context.fetch(FetchRequest(entityName: entity, predicate: substituted))
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}
