import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Entity`: makes a `ManagedObject` subclass's stored `var`s the entity's properties.
///
/// - member: the `entityDeclaration` the model is built from, the initializer every
///   object is made with, and, on the root class of a hierarchy, the Observation registrar;
/// - member attribute: `@EntityProperty` on each stored `var`, whose accessors read and
///   write the object's storage;
/// - extension: the root class conforms to `ObservableManagedObject`.
public struct EntityMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    /// What the macros know of the class.
    struct EntityClass {
        let name: String
        let superclass: String
        let isPublic: Bool
        /// A direct `ManagedObject` subclass: it holds the registrar and the conformance.
        var isRoot: Bool { superclass == "ManagedObject" || superclass == "Strata.ManagedObject" }
    }

    static func entityClass(_ declaration: some DeclGroupSyntax, at node: AttributeSyntax,
                            in context: some MacroExpansionContext) -> EntityClass? {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            let kind = declaration.is(StructDeclSyntax.self) ? "a struct"
                : declaration.is(EnumDeclSyntax.self) ? "an enum"
                : declaration.is(ActorDeclSyntax.self) ? "an actor"
                : declaration.is(ProtocolDeclSyntax.self) ? "a protocol"
                : declaration.is(ExtensionDeclSyntax.self) ? "an extension" : "this declaration"
            context.diagnose(Diagnostic(node: node, message: EntityDiagnostic.notAClass(kind)))
            return nil
        }
        let name = classDecl.name.trimmed.text
        guard let superclass = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else {
            context.diagnose(Diagnostic(node: classDecl.name, message: EntityDiagnostic.noSuperclass(name)))
            return nil
        }
        let modifiers = Set(classDecl.modifiers.map(\.name.text))
        return EntityClass(name: name, superclass: superclass, isPublic: modifiers.contains("public") || modifiers.contains("open"))
    }

    // MARK: member

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let entity = entityClass(declaration, at: node, in: context) else { return [] }
        let access = entity.isPublic ? "public " : ""
        var properties: [String] = []
        var nameTable: [String] = []
        var optionalNameTable: [String] = []
        var uniqueness: [String] = []
        var indexes: [String] = []
        var fetchedProperties: [String] = []
        for member in declaration.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self), StoredProperty.isCandidate(variable) {
                guard let property = StoredProperty.read(variable, in: context) else { continue }
                guard let line = declarationLine(property, entity: entity, in: context) else { continue }
                properties.append(line)
                nameTable.append("\\.\(escaped(property.name)): \(literal(property.name))")
                optionalNameTable.append("\\.?.\(escaped(property.name)): \(literal(property.name))")
                if property.isUnique { uniqueness.append("[\(literal(property.name))]") }
            } else if let marker = member.decl.as(MacroExpansionDeclSyntax.self) {
                switch marker.macroName.text {
                case "UniquenessConstraint":
                    guard let names = keyPathNames(marker, in: context) else { continue }
                    uniqueness.append("[" + names.map(literal).joined(separator: ", ") + "]")
                case "FetchIndex":
                    guard let names = keyPathNames(marker, in: context) else { continue }
                    let indexName = marker.arguments.first { $0.label?.text == "name" }?.expression.trimmedDescription
                        ?? literal("by" + names.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined())
                    indexes.append("Strata.FetchIndexDescription(\(indexName), elements: [\(names.map { ".init(\(literal($0)))" }.joined(separator: ", "))])")
                case "FetchedProperty":
                    guard let fetched = FetchedPropertyMacro.arguments(of: marker, in: context) else { continue }
                    fetchedProperties.append("Strata.FetchedPropertyDeclaration(\(literal(fetched.name)), entity: \(fetched.entity).self, predicate: \(fetched.predicate))")
                default: break
                }
            }
        }
        let arguments = node.arguments?.as(LabeledExprListSyntax.self)
        let entityName = arguments?.first { $0.label?.text == "name" }?.expression.trimmedDescription ?? literal(entity.name)
        let isAbstract = arguments?.first { $0.label?.text == "isAbstract" }?.expression.trimmedDescription ?? "false"
        let parent = entity.isRoot ? "nil" : "\(entity.superclass).self"
        var body = "Strata.EntityDeclaration(\n"
        body += "    name: \(entityName), class: \(entity.name).self, parent: \(parent), isAbstract: \(isAbstract),\n"
        body += "    properties: [" + (properties.isEmpty ? "]" : "\n" + properties.map { "        \($0),\n" }.joined() + "    ]")
        if !uniqueness.isEmpty { body += ",\n    uniquenessConstraints: [\(uniqueness.joined(separator: ", "))]" }
        if !indexes.isEmpty { body += ",\n    fetchIndexes: [\(indexes.joined(separator: ", "))]" }
        if !fetchedProperties.isEmpty { body += ",\n    fetchedProperties: [\(fetchedProperties.joined(separator: ", "))]" }
        body += "\n)"
        var members: [DeclSyntax] = [
            """
            \(raw: access)override class var entityDeclaration: Strata.EntityDeclaration? {
            \(raw: body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
            }
            """,
        ]
        // The key path table typed requests and `#Predicate` read (ManagedObject.propertyName(for:)),
        // rooted at `Self` so that a sub-entity's class finds its parent's properties.
        let table = nameTable.isEmpty ? "[:]" : "[" + nameTable.joined(separator: ", ") + "]"
        members.append("""
            \(raw: access)override class func propertyName(for keyPath: AnyKeyPath) -> String? {
                func names<Root: \(raw: entity.name)>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                    \(raw: table)
                }
                return propertyName(for: keyPath, in: names(Self.self)) ?? super.propertyName(for: keyPath)
            }
            """)
        // The same key paths, and the same from an optional of the class (`\.?.name`), for
        // sort descriptors through to-ones (docs/PREDICATES.md §1b).
        let optionalTable = optionalNameTable.isEmpty ? "[:]" : "[" + optionalNameTable.joined(separator: ", ") + "]"
        members.append("""
            \(raw: access)override class func propertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                func names<Root: \(raw: entity.name)>(_: Root.Type) -> [PartialKeyPath<Root>: String] {
                    \(raw: table)
                }
                return propertyKeyPaths(in: names(Self.self)) + super.propertyKeyPaths()
            }
            """)
        members.append("""
            \(raw: access)override class func optionalPropertyKeyPaths() -> [(keyPath: AnyKeyPath, name: String)] {
                func names<Root: \(raw: entity.name)>(_: Root.Type) -> [PartialKeyPath<Root?>: String] {
                    \(raw: optionalTable)
                }
                return propertyKeyPaths(in: names(Self.self)) + super.optionalPropertyKeyPaths()
            }
            """)
        if arguments?.contains(where: { $0.label?.text == "name" }) == true {
            members.append("\(raw: access)override class var entityName: String { \(raw: entityName) }")
        }
        let declaresInit = declaration.memberBlock.members.contains { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
            return initializer.signature.parameterClause.parameters.map(\.firstName.text) == ["entity", "insertInto"]
        }
        if !declaresInit {
            members.append("""
                \(raw: access)required init(entity: Strata.EntityDescription, insertInto context: Strata.ManagedObjectContext?) {
                    super.init(entity: entity, insertInto: context)
                }
                """)
        }
        if entity.isRoot {
            members.append("\(raw: access)let observationRegistrar = Observation.ObservationRegistrar()")
        }
        return members
    }

    /// The `PropertyDeclaration` call for one property.
    private static func declarationLine(_ property: StoredProperty, entity: EntityClass,
                                        in context: some MacroExpansionContext) -> String? {
        var arguments = [literal(property.name), "\\\(entity.name).\(escaped(property.name))"]
        if let initial = property.initialValue { arguments.append("defaultValue: \(initial.trimmedDescription)") }
        if property.isTransient { arguments.append("isTransient: true") }
        if let attribute = property.attribute {
            if let derivation = (attribute.arguments?.as(LabeledExprListSyntax.self) ?? []).first(where: { $0.label?.text == "derivation" }) {
                // The model parses the expression (docs/PREDICATES.md); here it must be text
                // the macro can pass on, on a stored, computed-at-save attribute.
                guard let text = derivation.expression.as(StringLiteralExprSyntax.self),
                      text.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) }) else {
                    context.diagnose(Diagnostic(node: derivation.expression, message: EntityDiagnostic.notLiteral("derivation")))
                    return nil
                }
                if property.isTransient {
                    context.diagnose(Diagnostic(node: attribute, message: EntityDiagnostic.derivedTransient(property.name)))
                    return nil
                }
                if property.initialValue != nil {
                    context.diagnose(Diagnostic(node: attribute, message: EntityDiagnostic.derivedInitialValue(property.name)))
                    return nil
                }
            }
            arguments += (attribute.arguments?.as(LabeledExprListSyntax.self) ?? []).map(\.trimmedDescription)
                .map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
            return ".attribute(" + arguments.joined(separator: ", ") + ")"
        }
        if let relationship = property.relationship {
            for argument in relationship.arguments?.as(LabeledExprListSyntax.self) ?? [] {
                if argument.label?.text == "inverse" {
                    if argument.expression.is(NilLiteralExprSyntax.self) {
                        arguments.append("withoutInverse: true")
                        continue
                    }
                    guard let name = lastComponent(argument.expression) else {
                        context.diagnose(Diagnostic(node: argument.expression, message: EntityDiagnostic.inverseNotKeyPath()))
                        return nil
                    }
                    arguments.append("inverse: \(literal(name))")
                } else {
                    arguments.append(argument.with(\.trailingComma, nil).trimmedDescription)
                }
            }
            return ".relationship(" + arguments.joined(separator: ", ") + ")"
        }
        return ".property(" + arguments.joined(separator: ", ") + ")"
    }

    /// The property names of `#UniquenessConstraint<T>([\.a, \.b])` or `#FetchIndex<T>(…)`.
    private static func keyPathNames(_ marker: MacroExpansionDeclSyntax, in context: some MacroExpansionContext) -> [String]? {
        guard let array = marker.arguments.first?.expression.as(ArrayExprSyntax.self) else {
            context.diagnose(Diagnostic(node: marker, message: EntityDiagnostic.keyPathsNotLiteral(marker.macroName.text)))
            return nil
        }
        var names: [String] = []
        for element in array.elements {
            guard let name = lastComponent(element.expression) else {
                context.diagnose(Diagnostic(node: element, message: EntityDiagnostic.keyPathsNotLiteral(marker.macroName.text)))
                return nil
            }
            names.append(name)
        }
        return names
    }

    /// `employees` of `\Department.employees` or `\.employees`; nil for anything but a
    /// one-component key path literal.
    static func lastComponent(_ expression: ExprSyntax) -> String? {
        guard let keyPath = expression.as(KeyPathExprSyntax.self), keyPath.components.count == 1,
              let property = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)
        else { return nil }
        return property.declName.baseName.text.filter { $0 != "`" }
    }

    static func literal(_ text: String) -> String {
        "\"" + text.map { $0 == "\\" || $0 == "\"" ? "\\\($0)" : "\($0)" }.joined() + "\""
    }

    static func escaped(_ name: String) -> String {
        ["default", "class", "init", "self", "Type", "func", "var", "let", "in", "is", "as"].contains(name) ? "`\(name)`" : name
    }

    // MARK: member attribute

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
              StoredProperty.isCandidate(variable), variable.bindingSpecifier.tokenKind == .keyword(.var),
              variable.bindings.count == 1, variable.bindings.first?.accessorBlock == nil,
              let type = variable.bindings.first?.typeAnnotation?.type, StoredProperty.unsupported(type) == nil
        else { return [] }
        if variable.attributes.contains(where: {
            if case .attribute(let attribute) = $0 { return StoredProperty.annotationName(attribute) == "EntityProperty" }
            return false
        }) { return [] }
        return ["@EntityProperty"]
    }

    // MARK: extension

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // Diagnosed by the member role; said once.
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
              let superclass = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
              superclass == "ManagedObject" || superclass == "Strata.ManagedObject"
        else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): Strata.ObservableManagedObject {}")]
    }
}
