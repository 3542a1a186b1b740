extension StrataError {
    /// For `.mergeConflict` from a context's save: each record changed in the store since
    /// the context read it (empty for other codes, and when another process's save clashed
    /// with this one inside the store).
    public var mergeConflicts: [MergeConflict] {
        // StrataError lives in StrataStorage, which names no object type: it keeps the
        // conflicts as records it can print, and this gives them back typed.
        get { mergeConflictRecords.compactMap { $0 as? MergeConflict } }
        set { mergeConflictRecords = newValue }
    }

    /// For `.constraintConflict` from a context's save: each key objects of the save share
    /// with each other or with a stored record (empty for other codes).
    public var constraintConflicts: [ConstraintConflict] {
        get { constraintConflictRecords.compactMap { $0 as? ConstraintConflict } }
        set { constraintConflictRecords = newValue }
    }
}
