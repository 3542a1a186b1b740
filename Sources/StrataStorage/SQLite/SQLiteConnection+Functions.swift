import CSQLite
import Foundation

/// The Swift closure behind a custom SQL function, kept alive by SQLite (retained when the
/// function is registered, released by SQLite's destructor callback).
final class SQLiteFunctionBox {
    let name: String
    let body: ([SQLiteValue]) throws -> SQLiteValue
    /// The connection the function is registered on, told of the error a call throws.
    weak var connection: SQLiteConnection?

    init(name: String, body: @escaping ([SQLiteValue]) throws -> SQLiteValue) {
        self.name = name
        self.body = body
    }
}

/// The C entry point of every custom function: unboxes the closure and calls it.
private let sqliteFunctionEntry: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, arguments in
    guard let raw = sqlite3_user_data(context) else { return }
    let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(raw).takeUnretainedValue()
    var values: [SQLiteValue] = []
    values.reserveCapacity(Int(count))
    for index in 0..<Int(max(0, count)) { values.append(SQLiteValue._read(arguments?[index])) }
    do {
        try box.body(values)._setResult(in: context)
    } catch {
        let message = (error as? StrataError)?.message ?? String(describing: error)
        box.connection?.functionError = error as? StrataError
        sqlite3_result_error(context, "\(box.name): \(message)", -1)
    }
}

/// Releases a function's box when SQLite drops the function (replaced or connection closed).
private let sqliteFunctionDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
    guard let raw else { return }
    Unmanaged<SQLiteFunctionBox>.fromOpaque(raw).release()
}

extension SQLiteConnection {
    /// Registers (or replaces) a scalar SQL function implemented in Swift.
    ///
    /// A thrown error makes the SQL statement fail with the error's message.
    ///
    /// ```swift
    /// try connection.registerFunction(name: "strata_upper", argumentCount: 1, deterministic: true) { args in
    ///     guard case .text(let text) = args[0] else { return .null }
    ///     return .text(text.uppercased())
    /// }
    /// ```
    /// - Parameters:
    ///   - name: The SQL name.
    ///   - argumentCount: The number of arguments, or -1 for any number.
    ///   - deterministic: Whether the same arguments always give the same result (lets SQLite
    ///     use the function in indexes and factor calls out of loops).
    ///   - body: The implementation.
    /// - Throws: ``StrataError`` `.sqlite` when SQLite refuses the registration.
    package func registerFunction(
        name: String, argumentCount: Int, deterministic: Bool,
        _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue
    ) throws {
        let database = try liveHandle(for: nil)
        let function = SQLiteFunctionBox(name: name, body: body)
        function.connection = self
        let box = Unmanaged.passRetained(function)
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        // On failure SQLite calls the destructor itself, which releases the box.
        let code = sqlite3_create_function_v2(
            database, name, Int32(clamping: argumentCount), flags, box.toOpaque(),
            sqliteFunctionEntry, nil, nil, sqliteFunctionDestroy)
        guard code == SQLITE_OK else {
            var error = StrataError.sqlite(resultCode: code, database: database, sql: nil)
            error.context.function = name
            throw error
        }
        functionNames.insert(name)
    }

    /// The error the last failing call of a registered function threw, taken once: lets a
    /// caller report the function's own error (a `.predicateEvaluation`, say) instead of the
    /// `.sqlite` failure of the statement it ran in.
    package func takeFunctionError() -> StrataError? {
        defer { functionError = nil }
        return functionError
    }

    /// The names of the functions registered through ``registerFunction(name:argumentCount:deterministic:_:)``.
    package var registeredFunctionNames: Set<String> { functionNames }
}
