import Foundation

/// A uniqueness constraint's index as a document holds it (`strata info`).
package struct ConstraintIndexStatus: Sendable, Hashable {
    /// The index's name, `Person_unique_email_index`.
    package let name: String
    /// The snapshot table and the constrained columns.
    package let table: String
    package let columns: [String]
    /// Whether the document has it (a read-only open of a document created before the
    /// constraint was declared has not).
    package let isPresent: Bool
    /// Whether it is UNIQUE; not when records broke the constraint before it was declared.
    package let isUnique: Bool
    /// The clashing keys of a non-unique index: `email = 'a@x': Person 3, 7`.
    package let clashes: [String]
}

extension DocumentStore {
    /// Each uniqueness constraint's index in the snapshot, with the records that keep a
    /// non-unique one from becoming UNIQUE (docs/SQL.md, "Uniqueness constraints") — also
    /// a constraint index that a newer model than the one this store opened with made.
    package func constraintIndexStatus() throws -> [ConstraintIndexStatus] {
        try withOpenState { state in
            try schema.uniquenessIndexStates(on: state.connection, undeclared: true).map { item in
                ConstraintIndexStatus(
                    name: item.index.name, table: item.index.table, columns: item.index.columns,
                    isPresent: item.isPresent, isUnique: item.isUnique,
                    clashes: item.clashes.map { clash in
                        let key = zip(item.index.columns, clash.key).map { "\($0) = \($1)" }.joined(separator: ", ")
                        return "\(key): \(item.index.table) \(clash.keys.map(String.init).joined(separator: ", "))"
                    })
            }
        }
    }

}
