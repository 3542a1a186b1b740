/// The key a statement is cached under by ``SQLiteConnection/prepare(shape:sql:)``: what
/// kind of statement it is, who builds it, and the few numbers its SQL is derived from (a
/// table, a slot), so that finding it again hashes four integers instead of its text.
///
/// ```swift
/// let shape = SQLiteStatementShape(kind: 1, owner: schemaNumber, first: entity.index)
/// let select = try connection.prepare(shape: shape) { "SELECT … FROM \"Employee\" WHERE …" }
/// ```
package struct SQLiteStatementShape: Hashable, Sendable {
    /// The kind of statement, chosen by the caller (one number per statement builder).
    package var kind: Int
    /// Who builds the SQL (for example one number per schema), so that two builders whose
    /// SQL differs for the same facts never share a shape on one connection.
    package var owner: Int
    /// The first fact the SQL depends on (for example an entity index).
    package var first: Int
    /// The second fact the SQL depends on (for example a slot), 0 when there is none.
    package var second: Int

    /// Creates a shape.
    package init(kind: Int, owner: Int, first: Int, second: Int = 0) {
        self.kind = kind
        self.owner = owner
        self.first = first
        self.second = second
    }
}
