import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored `var` of an `@Entity` class as the macros read it: its name, type, initial
/// value and annotations.
struct StoredProperty {
    let name: String
    let type: TypeSyntax
    let initialValue: ExprSyntax?
    let attribute: AttributeSyntax?
    let relationship: AttributeSyntax?
    let isTransient: Bool
    let isUnique: Bool

    /// The annotations `@Entity` reads, by name.
    static let annotationNames: Set<String> = ["Attribute", "Relationship", "Transient", "Unique"]

    /// Whether `variable` is one the entity stores: a `var` (or a `let`, which is
    /// diagnosed) that is not static, lazy or computed. Property observers count as
    /// stored (and are diagnosed).
    static func isCandidate(_ variable: VariableDeclSyntax) -> Bool {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if modifiers.contains("static") || modifiers.contains("class") || modifiers.contains("lazy") { return false }
        for binding in variable.bindings {
            switch binding.accessorBlock?.accessors {
            case .getter?: return false
            case .accessors(let accessors)?:
                let kinds = Set(accessors.map(\.accessorSpecifier.text))
                if !kinds.isSubset(of: ["willSet", "didSet"]) { return false }
            case nil: break
            }
        }
        return true
    }

    /// Reads `variable`, or reports why it cannot be an entity property.
    static func read(_ variable: VariableDeclSyntax, in context: some MacroExpansionContext) -> StoredProperty? {
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            context.diagnose(Diagnostic(node: variable, message: EntityDiagnostic.severalBindings()))
            return nil
        }
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            context.diagnose(Diagnostic(node: binding.pattern, message: EntityDiagnostic.severalBindings()))
            return nil
        }
        let name = identifier.identifier.trimmed.text.filter { $0 != "`" }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: EntityDiagnostic.storedLet(name)))
            return nil
        }
        if binding.accessorBlock != nil {
            context.diagnose(Diagnostic(node: binding, message: EntityDiagnostic.observers(name)))
            return nil
        }
        guard let typeNode = binding.typeAnnotation?.type else {
            context.diagnose(Diagnostic(node: binding, message: EntityDiagnostic.missingType(name)))
            return nil
        }
        if let reason = unsupported(typeNode) {
            context.diagnose(Diagnostic(node: typeNode, message: EntityDiagnostic.unsupportedType(name, reason)))
            return nil
        }
        let type = typeNode.trimmed
        var attribute: AttributeSyntax?, relationship: AttributeSyntax?
        var isTransient = false, isUnique = false
        for case .attribute(let annotation) in variable.attributes {
            switch annotationName(annotation) {
            case "Attribute": attribute = annotation
            case "Relationship": relationship = annotation
            case "Transient": isTransient = true
            case "Unique": isUnique = true
            default: break
            }
        }
        if attribute != nil, let relationship {
            context.diagnose(Diagnostic(node: relationship, message: EntityDiagnostic.attributeAndRelationship(name)))
            return nil
        }
        return StoredProperty(name: name, type: type, initialValue: binding.initializer?.value.trimmed,
                              attribute: attribute, relationship: relationship, isTransient: isTransient, isUnique: isUnique)
    }

    /// The annotation's name without a module prefix (`StrataModels.Attribute` → `Attribute`).
    static func annotationName(_ attribute: AttributeSyntax) -> String {
        if let member = attribute.attributeName.as(MemberTypeSyntax.self) { return member.name.text }
        return attribute.attributeName.as(IdentifierTypeSyntax.self)?.name.text ?? attribute.attributeName.trimmedDescription
    }

    /// Why a type is certainly not storable, judged from its spelling: functions, tuples,
    /// existentials and metatypes. Everything else is judged at run time by
    /// `ManagedObjectModel(types:)`, which sees the real type.
    static func unsupported(_ type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return unsupported(optional.wrappedType) }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unsupported(optional.wrappedType) }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unsupported(attributed.baseType) }
        if type.is(FunctionTypeSyntax.self) || type.is(MetatypeTypeSyntax.self) || type.is(SomeOrAnyTypeSyntax.self)
            || type.is(CompositionTypeSyntax.self) {
            return type.trimmedDescription
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            // `(Int)` is Int in parentheses; more elements make a tuple.
            return tuple.elements.count == 1 ? tuple.elements.first.flatMap { unsupported($0.type) } : type.trimmedDescription
        }
        if let identifier = type.as(IdentifierTypeSyntax.self),
           ["Any", "AnyObject", "Void", "Never"].contains(identifier.name.text) {
            return type.trimmedDescription
        }
        return nil
    }
}
