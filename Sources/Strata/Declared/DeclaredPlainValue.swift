import Foundation

/// The types whose null value (0, "", false, an empty collection) a non-optional declared
/// property reads when it holds no value, so that it needs no initial value.
public protocol DeclaredPlainValue {
    /// The value a null reads as.
    static var declaredNullValue: Self { get }
}

extension DeclaredPlainValue where Self: PropertyValueConvertible {
    /// What a null attribute reads as (``PropertyValueConvertible/init(propertyValue:)``).
    public static var declaredNullValue: Self { Self(propertyValue: .null) }
}

extension Int64: DeclaredPlainValue {}
extension Int: DeclaredPlainValue {}
extension Int32: DeclaredPlainValue {}
extension Int16: DeclaredPlainValue {}
extension Double: DeclaredPlainValue {}
extension Float: DeclaredPlainValue {}
extension Decimal: DeclaredPlainValue {}
extension String: DeclaredPlainValue {}
extension Bool: DeclaredPlainValue {}
extension Date: DeclaredPlainValue {}
extension Data: DeclaredPlainValue {}
extension UUID: DeclaredPlainValue {}
extension URL: DeclaredPlainValue {}
extension Set: DeclaredPlainValue where Element: ManagedObject {
    /// No objects.
    public static var declaredNullValue: Set<Element> { [] }
}

extension Array: DeclaredPlainValue where Element: ManagedObject {
    /// No objects.
    public static var declaredNullValue: [Element] { [] }
}
