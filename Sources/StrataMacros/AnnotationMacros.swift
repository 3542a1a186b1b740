import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship`, `@Transient` and `@Unique`: annotations `@Entity` reads.
/// They generate nothing themselves; they check only that they mark a stored `var`.
public struct AnnotationMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), StoredProperty.isCandidate(variable) else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.annotationOutsideEntity(StoredProperty.annotationName(node))))
            return []
        }
        return []
    }
}

/// `#UniquenessConstraint` and `#FetchIndex`: declarations `@Entity` reads; they expand
/// to nothing.
public struct DeclarationMarkerMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
