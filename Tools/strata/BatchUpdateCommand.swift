import Foundation
import Strata
import StrataToolSupport

/// `strata update DOC ENTITY --where PRED key=EXPR ...`: a batch update whose values are
/// expressions over each record, run in the store as one undo group.
struct BatchUpdateRun {
    var document: String
    var entity: String
    var predicate: String
    var assignments: [String]
    var json: Bool

    /// Parses the predicate and the `key=EXPR` assignments (before the document is opened,
    /// so a typo changes nothing), runs the update and prints how many records it matched
    /// and changed.
    /// - Throws: `.predicateSyntax` naming the key and column of a malformed expression,
    ///   `.invalidArgument` for `+=`/`-=` or a key given twice; the batch update's errors.
    func run() throws {
        let filter: FetchPredicate
        do {
            filter = try FetchPredicate(format: predicate)
        } catch var error as StrataError {
            error.message = "Malformed predicate: \(error.message) (in: \(FetchCommand.excerpt(predicate, column: error.context.column)))"
            throw error
        }
        var values: [String: FetchExpression] = [:]
        for argument in assignments {
            let assignment = try Assignment(argument)
            guard assignment.operation == .set else {
                throw StrataError(.invalidArgument, "\(input: argument): a batch update (--where) sets attributes with key=EXPR; += and -= change one object's to-many.",
                                  context: .init { $0.key = assignment.key; $0.value = argument })
            }
            guard values[assignment.key] == nil else {
                throw StrataError(.invalidArgument, "\(input: assignment.key) is set twice.", context: .init { $0.key = assignment.key })
            }
            do {
                values[assignment.key] = try FetchExpression(format: assignment.text)
            } catch var error as StrataError {
                error.message = "Malformed expression for \(input: assignment.key): \(error.message) (in: \(FetchCommand.excerpt(assignment.text, column: error.context.column)))"
                error.context.key = assignment.key
                throw error
            }
        }
        let result = try DocumentSession.with(document, writes: true) { session in
            let request = BatchUpdateRequest(entityName: try session.entity(named: entity).name, predicate: filter, propertiesToUpdate: values)
            request.registersUndo = true
            do {
                return try session.context.executeBatch(request)
            } catch var error as StrataError where error.code == .unknownKey && error.context.expression != nil {
                // `name=Ada` reads the key path Ada: strings in expressions are quoted.
                error.message += " (Strings in expressions are quoted: name='Ada'.)"
                throw error
            }
        }
        let name = entity
        if json {
            CommandOutput.printJSON(.object([
                .init("entity", .string(name)),
                .init("matched", .number(String(result.count))),
                .init("updated", .number(String(result.changes.updated.count))),
            ]))
        } else {
            print(CommandOutput.table(["entity", "matched", "updated"],
                                      [[name, CommandOutput.grouped(result.count), CommandOutput.grouped(result.changes.updated.count)]],
                                      rightAligned: [1, 2]))
        }
    }
}
