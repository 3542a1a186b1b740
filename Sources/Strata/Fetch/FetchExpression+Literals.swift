// Literals are constants, as Core Data's `NSExpression(forConstantValue:)`: a string literal
// is the string, never a key path (write `.keyPath("name")` or `.key("a.b")` for one). This
// keeps `propertiesToUpdate: ["salary": 60_000, "name": "Ada"]` compiling now that batch
// update values are expressions.
extension FetchExpression: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `nil` is the constant NULL.
    public init(nilLiteral: ()) { self = .constant(.null) }
    /// An integer literal is an integer constant.
    public init(integerLiteral value: Int64) { self = .constant(.integer(value)) }
    /// A float literal is a double constant.
    public init(floatLiteral value: Double) { self = .constant(.double(value)) }
    /// A string literal is a string constant (not a key path).
    public init(stringLiteral value: String) { self = .constant(.string(value)) }
    /// A boolean literal is a boolean constant.
    public init(booleanLiteral value: Bool) { self = .constant(.boolean(value)) }
}
