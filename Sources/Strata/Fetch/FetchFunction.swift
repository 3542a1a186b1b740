import Foundation

/// The functions of the expression language: Core Data's `NSExpression` function names.
///
/// The raw value is the name as Foundation spells it (`"add:to:"`, `"sum:"`, `"now"`), which
/// is also how a format string may call it: `add:to:(salary, 100)`. Arithmetic has its
/// operator forms too (`salary + 100` is the same tree), and so do `CAST(value, 'Type')`
/// (``castObject``) and subscripts (``FetchExpression/index(_:_:)`` instead).
///
/// ```swift
/// FetchExpression.function(.multiply, [.keyPath("salary"), .constant(1.1)])   // salary * 1.1
/// FetchExpression.function(.sum, [.keyPath("employees.salary")])              // sum:(employees.salary)
/// FetchExpression.function(.now, [])                                           // now()
/// ```
///
/// Semantics, argument counts and how each is computed by SQLite are in docs/PREDICATES.md.
public enum FetchFunction: String, Hashable, Sendable, CaseIterable {
    // Arithmetic (the operators + - * / ** and unary -).
    /// `a + b`: numbers, or a date plus seconds.
    case add = "add:to:"
    /// `a - b`: numbers, a date minus seconds, or two dates (seconds between them).
    case subtract = "from:subtract:"
    /// `a * b`.
    case multiply = "multiply:by:"
    /// `a / b`: a double for integers and doubles (`3 / 2` is 1.5), a decimal for decimals
    /// with integers or decimals; division by zero is NULL.
    case divide = "divide:by:"
    /// `modulus:by:(a, b)`: the remainder.
    case modulus = "modulus:by:"
    /// `a ** b`: a raised to the power b.
    case raise = "raise:toPower:"

    // Aggregates over a collection argument.
    /// `sum:(collection)`.
    case sum = "sum:"
    /// `count:(collection)`.
    case count = "count:"
    /// `min:(collection)`.
    case min = "min:"
    /// `max:(collection)`.
    case max = "max:"
    /// `average:(collection)`.
    case average = "average:"
    /// `median:(collection)`.
    case median = "median:"
    /// `mode:(collection)`: the most frequent values, as a collection.
    case mode = "mode:"
    /// `stddev:(collection)`: the population standard deviation.
    case standardDeviation = "stddev:"

    // Numeric functions of one number.
    /// `sqrt:(x)`.
    case squareRoot = "sqrt:"
    /// `log:(x)`: base-10 logarithm.
    case log = "log:"
    /// `ln:(x)`: natural logarithm.
    case naturalLogarithm = "ln:"
    /// `exp:(x)`: e raised to x.
    case exponential = "exp:"
    /// `abs:(x)`.
    case absoluteValue = "abs:"
    /// `floor:(x)`.
    case floor = "floor:"
    /// `ceiling:(x)`.
    case ceiling = "ceiling:"
    /// `trunc:(x)`: toward zero.
    case truncate = "trunc:"

    // Bitwise functions of integers.
    /// `bitwiseAnd:with:(a, b)`.
    case bitwiseAnd = "bitwiseAnd:with:"
    /// `bitwiseOr:with:(a, b)`.
    case bitwiseOr = "bitwiseOr:with:"
    /// `bitwiseXor:with:(a, b)`.
    case bitwiseXor = "bitwiseXor:with:"
    /// `leftshift:by:(a, n)`.
    case leftShift = "leftshift:by:"
    /// `rightshift:by:(a, n)`.
    case rightShift = "rightshift:by:"
    /// `onesComplement:(a)`.
    case onesComplement = "onesComplement:"

    // Strings.
    /// `uppercase:(s)`.
    case uppercase = "uppercase:"
    /// `lowercase:(s)`.
    case lowercase = "lowercase:"
    /// `length:(s)`, also written `s.length`: the length in UTF-16 code units, as Foundation's.
    case length = "length:"
    /// `canonical:(s)`: s folded for comparison as `[cd]` folds it (case and diacritics
    /// removed), what Core Data's derived attributes store for searching.
    case canonical = "canonical:"

    // Others.
    /// `now()`: the current date (one value for a whole fetch or batch update).
    case now = "now"
    /// `random()`: a double in [0, 1).
    case random = "random"
    /// `random:(n)`: an integer in [0, n).
    case randomBelow = "random:"
    /// `noindex:(x)`: x itself (a hint to stores not to use an index).
    case noIndex = "noindex:"
    /// `CAST(value, 'Type')`: value converted to `NSNumber`, `NSString`, `NSDate`,
    /// `NSDecimalNumber`, … (the type name is the second argument, a string constant).
    case castObject = "castObject:toType:"

    /// How many arguments the function takes.
    public var argumentCount: Int {
        switch self {
        case .now, .random: return 0
        case .add, .subtract, .multiply, .divide, .modulus, .raise,
             .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .castObject:
            return 2
        default: return 1
        }
    }

    /// Whether the function reduces a collection to one value (or, for ``mode``, a
    /// collection): in a grouped fetch these are the aggregates computed per group.
    public var isAggregate: Bool {
        switch self {
        case .sum, .count, .min, .max, .average, .median, .mode, .standardDeviation: return true
        default: return false
        }
    }

    /// The infix operator the format language writes this function with, if any.
    public var infixOperator: String? {
        switch self {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        case .divide: return "/"
        case .raise: return "**"
        default: return nil
        }
    }
}

/// A subscript of a collection (or, with a string key, of an object or dictionary):
/// `SELF[FIRST]`, `items[LAST]`, `items[SIZE]`, `(SELF.g)[0]`, `SELF['name']`.
public enum FetchIndex: Hashable, Sendable {
    /// `[FIRST]`: the first element (NULL for an empty collection).
    case first
    /// `[LAST]`: the last element (NULL for an empty collection).
    case last
    /// `[SIZE]`: the number of elements.
    case size
    /// `[n]` (an integer, 0-based) or `['key']` (the value for a key); what an index out
    /// of range gives is stated in docs/PREDICATES.md.
    case at(FetchExpression)
}
