import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#FetchedProperty("highEarners", entity: Employee.self, predicate: "…")` in an
/// `@Entity` class: `@Entity` reads it into the entity's fetched properties (the JSON
/// model's `fetchedProperties`, docs/MODEL-FORMAT.md §6); it expands to a typed, throwing
/// accessor of that name.
public struct FetchedPropertyMacro: DeclarationMacro {
    /// What `#FetchedProperty` says: the name, the fetched class's name and the predicate
    /// literal as written.
    struct Arguments {
        let name: String
        let entity: String
        let predicate: String
    }

    /// The arguments, or nil with a diagnostic when they are not literals of the expected shape.
    static func arguments(of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext) -> Arguments? {
        let arguments = Array(node.arguments)
        func literal(_ expression: ExprSyntax?) -> StringLiteralExprSyntax? {
            guard let text = expression?.as(StringLiteralExprSyntax.self),
                  text.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) }) else { return nil }
            return text
        }
        guard arguments.count == 3, arguments[0].label == nil, arguments[1].label?.text == "entity",
              arguments[2].label?.text == "predicate",
              let name = literal(arguments[0].expression), let predicate = literal(arguments[2].expression),
              let member = arguments[1].expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
              let base = member.base
        else {
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.fetchedPropertyArguments()))
            return nil
        }
        let text = name.segments.compactMap { $0.as(StringSegmentSyntax.self)?.content.text }.joined()
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !(text.first?.isNumber ?? true) else {
            context.diagnose(Diagnostic(node: arguments[0].expression, message: EntityDiagnostic.fetchedPropertyArguments()))
            return nil
        }
        return Arguments(name: text, entity: base.trimmedDescription, predicate: predicate.trimmedDescription)
    }

    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let fetched = arguments(of: node, in: context) else { return [] }
        let isPublic = context.lexicalContext.first?.as(ClassDeclSyntax.self)?.modifiers
            .contains { ["public", "open"].contains($0.name.text) } ?? false
        return ["""
            \(raw: isPublic ? "public " : "")var \(raw: EntityMacro.escaped(fetched.name)): [\(raw: fetched.entity)] {
                get throws {
                    try fetchedProperty(\(raw: EntityMacro.literal(fetched.name)), as: \(raw: fetched.entity).self)
                }
            }
            """]
    }
}
