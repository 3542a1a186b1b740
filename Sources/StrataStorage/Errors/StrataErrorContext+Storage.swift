extension StrataError.Context {
    /// The stored fields of a context, one per public property (and in their order, which
    /// ``description`` lists them in).
    struct Fields: Hashable {
        var path: String? = nil
        var kind: Kind? = nil
        var segment: UInt64? = nil
        var offset: Int? = nil
        var layer: Layer? = nil
        var group: UInt64? = nil
        var boundarySegment: UInt64? = nil
        var format: Int? = nil
        var entity: String? = nil
        var entities: [String] = []
        var key: String? = nil
        var object: String? = nil
        var objects: [String] = []
        var blocking: [String] = []
        var template: String? = nil
        var model: String? = nil
        var modelVersion: Int? = nil
        var token: String? = nil
        var predicate: String? = nil
        var expression: String? = nil
        var pattern: String? = nil
        var variable: String? = nil
        var function: String? = nil
        var leftType: String? = nil
        var rightType: String? = nil
        var valueType: String? = nil
        var expectedType: String? = nil
        var value: String? = nil
        var line: Int? = nil
        var column: Int? = nil
        var row: Int? = nil
        var rows: [Int] = []
        var field: String? = nil
        var fieldIndex: Int? = nil
        var jsonPath: String? = nil
        var xmlElement: String? = nil
        var xmlAttribute: String? = nil
        var xmlErrorCode: Int? = nil
        var option: String? = nil
        var limit: String? = nil
        var maximum: Int? = nil
        var amount: Int? = nil
        var sql: String? = nil
        var sqliteResultCode: Int32? = nil
        var sqliteExtendedCode: Int32? = nil
        var sqliteMessage: String? = nil
        var errno: Int32? = nil
        var cause: Cause? = nil
        var processID: Int32? = nil
        var table: String? = nil
        var columnName: String? = nil
        var constraint: String? = nil
        var operation: String? = nil
        var reason: String? = nil
        var remote: String? = nil
        var server: String? = nil
        var document: String? = nil
        var sqlState: String? = nil
        var driverDetail: String? = nil
        var mergePolicy: String? = nil
        var hasSuggestion = false
    }

    /// The box a context's fields live in. Its fields change only through
    /// `uniqueStorage()`, when no other context refers to it (copy on write, as the
    /// standard library's collections do), so sharing it between threads is safe.
    final class Storage: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) { self.fields = fields }

        /// The storage of an empty context, shared: an error without context allocates none.
        static let empty = Storage(Fields())
    }

    /// The storage, copied first when another context shares it.
    mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    /// Whether two contexts hold the same fields.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes the fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}
