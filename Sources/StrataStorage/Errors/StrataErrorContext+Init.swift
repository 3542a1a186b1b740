extension StrataError.Context {
    /// An empty context: the error says nothing of where.
    public init() {
        storage = .empty
    }

    /// A context with the fields `fill` sets; name only what the error knows:
    ///
    /// ```swift
    /// StrataError(.corruptSegment, "…", context: .init { $0.segment = 3; $0.offset = 32 })
    /// ```
    ///
    /// A closure rather than one parameter per field: a call with sixty defaulted
    /// arguments takes a kilobyte of stack in every function that throws one, which deep
    /// recursion (a predicate nested a thousand levels) cannot spare.
    public init(_ fill: (inout StrataError.Context) throws -> Void) rethrows {
        self.init()
        try fill(&self)
    }

    /// A copy with `changes` made: a context that says more than the one it starts from
    /// (`error.context.with { $0.segment = sequence }`).
    public func with(_ changes: (inout StrataError.Context) throws -> Void) rethrows -> StrataError.Context {
        var copy = self
        try changes(&copy)
        return copy
    }
}
