import Foundation

/// One SQL statement with its bound parameters: what the fetch translation produces.
///
/// Values are never part of ``sql``: every value is a numbered parameter (`?1`, `?2`, …)
/// whose value is `bindings[n - 1]`; identifiers are quoted with `SnapshotSchema.quote`.
///
/// ```swift
/// let query = SQLQuery(sql: "SELECT t._pk FROM \"Person\" AS t WHERE t.\"salary\" > ?1",
///                      bindings: [.integer(5000)])
/// let rows = try query.rows(on: connection)
/// ```
package struct SQLQuery: Hashable, Sendable, CustomStringConvertible {
    /// The SQL text, with `?N` parameters.
    package var sql: String
    /// The parameter values: `bindings[0]` is `?1`.
    package var bindings: [SQLiteValue]

    /// Creates a query.
    package init(sql: String, bindings: [SQLiteValue]) {
        self.sql = sql
        self.bindings = bindings
    }

    /// The SQL followed by its bindings, for logs and test failures.
    package var description: String {
        bindings.isEmpty ? sql : "\(sql) -- \(bindings.map(\.description).joined(separator: ", "))"
    }

    /// Runs the query on `connection` (through its statement cache) and returns every row.
    ///
    /// The connection must have the translation's functions: ``SQLFunctions/register(on:)``.
    /// - Throws: ``StrataStorage/StrataError`` `.sqlite` when SQLite fails; the error a registered function
    ///   threw (`.predicateEvaluation` for an integer overflow in `strata_apply`, as the
    ///   evaluator's) when that made the statement fail.
    /// - Complexity: that of the SQL; a fetch without residual reads only the rows returned.
    package func rows(on connection: SQLiteConnection) throws -> [[SQLiteValue]] {
        try reportingFunctionErrors(on: connection) { try connection.prepare(sql).rows(bindings) }
    }

    /// Runs the query on `connection` (through its statement cache) and hands `body` the
    /// statement at each row, to read its columns there: a fetch decodes its records'
    /// values from the rows as SQLite steps, with no array of ``SQLiteValue`` per row.
    ///
    /// `body` must not run this query's SQL again (the cached statement is the cursor);
    /// other statements are fine once it has returned.
    /// - Throws: as ``rows(on:)``; whatever `body` throws, which stops the cursor.
    package func forEachCachedRow(on connection: SQLiteConnection, _ body: (SQLiteStatement) throws -> Void) throws {
        try reportingFunctionErrors(on: connection) {
            let statement = try connection.prepare(sql)
            defer { statement.resetQuietly() }
            try statement.bind(bindings)
            while try statement.step() == .row { try body(statement) }
        }
    }

    /// Runs the query on `connection` and hands each row to `body` as SQLite produces it,
    /// holding none: a cursor, for results too large to keep (`strata fetch`, `export`).
    ///
    /// The statement is prepared outside the connection's cache, so `body` may run other
    /// queries on the same connection, even this one's SQL, without rewinding the cursor.
    /// The row's columns are read from the statement inside `body` only; `body` returns
    /// whether to go on (false stops the cursor, as a reached limit does).
    /// - Throws: as ``rows(on:)``; whatever `body` throws, which stops the cursor.
    /// - Complexity: that of the SQL; memory does not grow with the number of rows (an
    ///   ORDER BY that no index serves is sorted by SQLite, which spills to disk).
    package func forEachRow(on connection: SQLiteConnection, _ body: (SQLiteStatement) throws -> Bool) throws {
        try reportingFunctionErrors(on: connection) {
            let statement = try connection.makeStatement(sql)
            try statement.bind(bindings)
            while try statement.step() == .row {
                guard try body(statement) else { break }
            }
        }
    }

    /// Runs `work` on `connection`; an SQLite failure that one of Strata's SQL functions
    /// caused is reported as that function's own error, naming this query's SQL.
    private func reportingFunctionErrors<Result>(on connection: SQLiteConnection, _ work: () throws -> Result) throws -> Result {
        _ = connection.takeFunctionError()
        do {
            return try work()
        } catch let error as StrataError where error.code == .sqlite {
            if var thrown = connection.takeFunctionError() {
                thrown.context.sql = sql
                throw thrown
            }
            throw error
        }
    }

    /// A copy whose parameters are renumbered `?1…?n` in order of first use, keeping only
    /// the bindings the SQL uses (SQLite refuses bindings past the last parameter). The SQL
    /// holds no string literals (values are parameters), so every `?` outside a quoted
    /// identifier is a parameter.
    func compacted() -> SQLQuery {
        var output = ""
        var renumbered: [Int: Int] = [:]
        var used: [SQLiteValue] = []
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        var quoted = false  // inside a "quoted identifier": a ? there is not a parameter
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" { quoted.toggle() }
            if scalar == "?", !quoted {
                var end = index + 1
                var number = 0
                while end < scalars.count, end - index <= 9, ("0"..."9").contains(scalars[end]) {
                    number = number * 10 + Int(scalars[end].value - 48)
                    end += 1
                }
                if end > index + 1, number >= 1, number <= bindings.count {
                    let new: Int
                    if let known = renumbered[number] {
                        new = known
                    } else {
                        used.append(bindings[number - 1])
                        new = used.count
                        renumbered[number] = new
                    }
                    output += "?\(new)"
                    index = end
                    continue
                }
            }
            output.unicodeScalars.append(scalar)
            index += 1
        }
        return SQLQuery(sql: output, bindings: used)
    }
}

/// How a store runs one fetch: a query for what SQL can decide exactly, and what is left
/// to evaluate in memory.
///
/// Without a ``residual`` the ``select`` query is the whole answer: the matching rows, in
/// order, with `LIMIT`/`OFFSET` applied. With one, ``select`` returns the candidates in
/// order without the window; the caller keeps the candidates for which the residual
/// evaluates to true (`FetchPredicate.evaluate(with:)` on the loaded object), then skips
/// `fetchOffset` and keeps `fetchLimit` of them. docs/SQL.md lists what is residual.
///
/// ```swift
/// let plan = try SQLPredicateTranslator(schema: schema).plan(for: request)
/// var rows = try plan.select.rows(on: connection)            // [[_pk, _entity]]
/// if let residual = plan.residual { rows = try rows.filter { try residual.evaluate(with: object(for: $0)) } }
/// if !plan.appliesWindow { rows = window(rows, offset: request.fetchOffset, limit: request.fetchLimit) }
/// ```
package struct SQLFetchPlan: Sendable {
    /// `SELECT t._pk, t._entity FROM "<Root>" AS t … WHERE … ORDER BY …, t._pk [LIMIT ?n OFFSET ?m]`.
    package var select: SQLQuery
    /// `SELECT COUNT(*) FROM … WHERE …`: the number of rows matching the translated
    /// conjuncts, ignoring the window. It is the fetch's count only when ``residual`` is nil.
    package var count: SQLQuery
    /// The conjuncts of the predicate SQL cannot decide exactly; nil when the whole
    /// predicate is in ``select``.
    package var residual: FetchPredicate?
    /// Whether ``select`` applies `fetchOffset`/`fetchLimit` (true exactly when there is no
    /// residual).
    package var appliesWindow: Bool { residual == nil }
}
