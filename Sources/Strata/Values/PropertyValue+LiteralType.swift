extension PropertyValue {
    /// The attribute type a constant of this value has in an expression: integers are
    /// 64-bit, and `nil` for a null, binary data, a UUID, a URI or an object reference,
    /// whose type an expression cannot tell from the value alone.
    ///
    /// Model checks (a derivation's result type) and the `strata fetch --select` column
    /// types both ask it, so a literal is typed the same way everywhere.
    public var literalAttributeType: AttributeType? {
        switch self {
        case .integer: return .integer64
        case .double: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .boolean: return .boolean
        case .date: return .date
        default: return nil
        }
    }
}
