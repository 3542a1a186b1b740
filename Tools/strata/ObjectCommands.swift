import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata insert DOC ENTITY key=value ...`.
struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Insert an object and print its URI.",
        discussion: """
            Each key=value sets an attribute (parsed by its type: integers, decimals, doubles, \
            true/false, ISO-8601 dates, UUIDs, URLs, strings, base64 data, or null) or a \
            relationship: a to-one key=@URI, a to-many key=@URI,@URI. References are full \
            object URIs or the short form Entity/pKEY. The insert is saved as one undo group \
            named "Insert ENTITY".

            Examples:
              strata insert staff.strata Department name=Research budget=250000.00
              strata insert staff.strata Employee firstName=Ada lastName=Lovelace \\
                  salary=150000 startDate=2024-03-01 department=@Department/p1
              strata insert staff.strata Project name="Analytical Engine" \\
                  members=@Employee/p1,@Employee/p2
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The entity to insert.")
    var entity: String
    @Argument(help: "key=value assignments.")
    var assignments: [String] = []

    func run() throws {
        let parsed = try assignments.map(Assignment.init)
        let uri = try DocumentSession.with(document, writes: true) { session in
            let entityDescription = try session.entity(named: entity)
            let object = try session.context.insertObject(of: entityDescription)
            for assignment in parsed { try assignment.apply(to: object, in: session) }
            try session.save(action: "Insert \(entityDescription.name)")
            return object.objectID.description
        }
        print(uri)
    }
}

/// `strata update DOC URI key=value ...`, or `strata update DOC ENTITY --where PRED key=EXPR ...`.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change an object's attributes and relationships, or every matching record's attributes.",
        discussion: """
            Takes the same key=value forms as insert, plus key+=@URI and key-=@URI to add or \
            remove one member of a to-many relationship. Saved as one undo group named \
            "Update ENTITY".

            With --where PREDICATE the first argument is an entity and the update is a batch \
            update of every record matching the predicate (TRUEPREDICATE for all): each \
            key=EXPR sets an attribute to an expression over the record's values before the \
            update (salary * 2, lowercase:(email), TERNARY(rating > 4, 1, 0), now(); strings \
            are quoted: name='Ada'). It prints how many records matched and how many changed \
            (--json for JSON), and is saved as one undo group named "Batch Update ENTITY" that \
            `strata undo` reverts.

            Examples:
              strata update staff.strata Employee/p1 salary=160000 email=ada@example.com
              strata update staff.strata x-strata://…/Employee/p1 manager=null
              strata update staff.strata Project/p1 members+=@Employee/p3 members-=@Employee/p2
              strata update staff.strata Employee --where 'salary < 50000' 'salary=trunc:(salary * 1.1)' 'email=lowercase:(email)'
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The object's URI (or Entity/pKEY); with --where, the entity.")
    var uri: String
    @Argument(help: "key=value, key+=@URI or key-=@URI assignments; with --where, key=EXPR.")
    var assignments: [String] = []
    @Option(name: .customLong("where"),
            help: ArgumentHelp("Update every record of the entity matching this predicate (a batch update).", valueName: "predicate"))
    var predicate: String?
    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard predicate != nil else {
            if output.json { throw ValidationError("--json goes with --where (a batch update prints its counts).") }
            return
        }
        guard !assignments.isEmpty else { throw ValidationError("A batch update (--where) needs at least one key=EXPR.") }
    }

    func run() throws {
        if let predicate {
            try BatchUpdateRun(document: document, entity: uri, predicate: predicate, assignments: assignments, json: output.json).run()
            return
        }
        let parsed = try assignments.map(Assignment.init)
        try DocumentSession.with(document, writes: true) { session in
            let object = try session.object(uri)
            for assignment in parsed { try assignment.apply(to: object, in: session) }
            try session.save(action: "Update \(object.entity.name)")
        }
    }
}

/// `strata delete DOC URI`.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object (its relationships' delete rules apply).",
        discussion: """
            Saved as one undo group named "Delete ENTITY"; `strata undo` brings the object \
            back with its relationships.

            Examples:
              strata delete staff.strata Employee/p2
              strata delete staff.strata Department/p1     # cascades to its employees
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The object's URI (or Entity/pKEY).")
    var uri: String

    func run() throws {
        try DocumentSession.with(document, writes: true) { session in
            let object = try session.object(uri)
            session.context.delete(object)
            try session.save(action: "Delete \(object.entity.name)")
        }
    }
}

/// `strata get DOC URI [--json]`.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show one object.",
        discussion: """
            Prints each stored property, one per line, in model order; --json prints the \
            object as {"_uri", "_entity", property: value, ...} (to-ones as URIs or null, \
            to-manys as arrays of URIs).

            Examples:
              strata get staff.strata Employee/p1
              strata get staff.strata Employee/p1 --json | jq .salary
            """)

    @OptionGroup var target: DocumentArgument
    var document: String { target.document }
    @Argument(help: "The object's URI (or Entity/pKEY).")
    var uri: String
    @OptionGroup var output: JSONFlag
    var json: Bool { output.json }

    func run() throws {
        try DocumentSession.with(document) { session in
            let object = try session.object(uri)
            let record = try session.json(for: object)
            if json {
                CommandOutput.printJSON(record)
                return
            }
            guard case .object(let members) = record else { return }
            let width = members.map(\.key.count).max() ?? 0
            for member in members {
                let padded = member.key + String(repeating: " ", count: width - member.key.count)
                print("\(padded)  \(Self.text(member.value))")
            }
        }
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .array(let items): return "[" + items.map(text).joined(separator: ", ") + "]"
        default: return value.rendered(pretty: false)
        }
    }
}
