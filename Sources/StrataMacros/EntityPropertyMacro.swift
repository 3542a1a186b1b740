import SwiftSyntax
import SwiftSyntaxMacros

/// `@EntityProperty`, which `@Entity` puts on each stored `var`: accessors that read and
/// write the object's storage through Observation. A property with an initial value keeps
/// it as the model's default and as what a read falls back to; the init accessor lets the
/// declaration keep its `= value`.
public struct EntityPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return [] }
        let name = identifier.identifier.trimmed.text.filter { $0 != "`" }
        let key = EntityMacro.literal(name)
        let keyPath = "\\.\(EntityMacro.escaped(name))"
        var accessors: [AccessorDeclSyntax] = []
        if binding.initializer != nil {
            accessors.append("init(initialValue) {}")
        }
        // With an initial value, the getter falls back to it when the stored value is null
        // or cannot be read; without one, the type's own null value or nil (the overloads
        // of `declaredValue` choose, and refuse a type that has neither).
        if let initial = binding.initializer?.value {
            accessors.append("""
                get {
                    declaredValue(forKey: \(raw: key), keyPath: \(raw: keyPath), initialValue: \(initial.trimmed))
                }
                """)
        } else {
            accessors.append("""
                get {
                    declaredValue(forKey: \(raw: key), keyPath: \(raw: keyPath))
                }
                """)
        }
        accessors.append("""
            set {
                setDeclaredValue(newValue, forKey: \(raw: key), keyPath: \(raw: keyPath))
            }
            """)
        return accessors
    }
}
