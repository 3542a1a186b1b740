import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Composite`: makes a struct's stored `var`s the elements of a composite attribute
/// (docs/MODEL-FORMAT.md §3a). The extension conforms the struct to `CompositeValue`: the
/// elements' declaration (names, Swift types, initial values as defaults) and the
/// conversions from and to the stored elements.
public struct CompositeMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            let kind = declaration.is(ClassDeclSyntax.self) ? "a class"
                : declaration.is(EnumDeclSyntax.self) ? "an enum"
                : declaration.is(ActorDeclSyntax.self) ? "an actor" : "this declaration"
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.compositeNotStruct(kind)))
            return []
        }
        let modifiers = Set(structDecl.modifiers.map(\.name.text))
        let access = modifiers.contains("public") ? "public " : ""
        let typeName = type.trimmedDescription
        var elements: [(name: String, initial: ExprSyntax?, settings: [String])] = []
        var isValid = true
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), StoredProperty.isCandidate(variable) else { continue }
            if variable.bindingSpecifier.tokenKind == .keyword(.let) {
                let name = variable.bindings.first?.pattern.trimmedDescription ?? "value"
                context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: EntityDiagnostic.compositeLet(name)))
                isValid = false
                continue
            }
            guard let property = StoredProperty.read(variable, in: context) else {
                isValid = false
                continue
            }
            var settings: [String] = []
            if let attribute = property.attribute {
                for argument in attribute.arguments?.as(LabeledExprListSyntax.self) ?? [] {
                    // An element is stored; its value is the struct's, never derived.
                    if argument.label?.text == "derivation" {
                        context.diagnose(Diagnostic(node: argument, message: EntityDiagnostic.compositeSetting(property.name, "derivation")))
                        isValid = false
                        continue
                    }
                    settings.append(argument.with(\.trailingComma, nil).trimmedDescription)
                }
            }
            if property.isTransient || property.relationship != nil || property.isUnique {
                let what = property.isTransient ? "@Transient" : property.isUnique ? "@Unique" : "@Relationship"
                context.diagnose(Diagnostic(node: variable, message: EntityDiagnostic.compositeSetting(property.name, what)))
                isValid = false
                continue
            }
            elements.append((property.name, property.initialValue, settings))
        }
        guard isValid else { return [] }
        let declarations = elements.map { element in
            var arguments = [EntityMacro.literal(element.name), "\\\(typeName).\(EntityMacro.escaped(element.name))"]
            if let initial = element.initial { arguments.append("defaultValue: \(initial.trimmedDescription)") }
            arguments += element.settings
            return "            .element(" + arguments.joined(separator: ", ") + "),\n"
        }.joined()
        let reads = elements.map { "        self.\(EntityMacro.escaped($0.name)) = try elements.value(forKey: \(EntityMacro.literal($0.name)))\n" }.joined()
        let writes = elements.map { "        elements.setValue(self.\(EntityMacro.escaped($0.name)), forKey: \(EntityMacro.literal($0.name)))\n" }.joined()
        let source = """
            extension \(typeName): Strata.CompositeValue {
                \(access)static var compositeDeclaration: Strata.CompositeDeclaration {
                    Strata.CompositeDeclaration(typeName: \(EntityMacro.literal(structDecl.name.trimmed.text)), elements: [\(elements.isEmpty ? "" : "\n" + declarations + "        ")])
                }
                \(access)init(compositeElements elements: Strata.CompositeElements) throws {
            \(reads)    }
                \(access)var compositeElements: Strata.CompositeElements {
                    var elements = Strata.CompositeElements()
            \(writes)        return elements
                }
            }
            """
        return [try ExtensionDeclSyntax("\(raw: source)")]
    }
}
