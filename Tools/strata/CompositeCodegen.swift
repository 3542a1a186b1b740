import Foundation
import Strata

/// The code `strata codegen` writes for a composite attribute, inside its class's extension:
/// a `CompositeKey`, a nested struct of the elements (a nested composite a struct inside
/// it), and a property reading and writing the whole value through the elements' typed keys.
///
/// The struct is the composite's name capitalized (`address` → `Address`), or
/// `AddressValue` when a generated class has that name. An element keeps the model's
/// optionality; the property reads nil when every element is NULL, or when a required one
/// is (an object not yet given its composite), and setting nil makes every element NULL.
struct CompositeCodegen {
    /// `public ` or nothing.
    let access: String
    let entity: EntityDescription
    /// Type names a struct must not take (``GeneratedTypeNames/reserved``).
    let reserved: Set<String>
    /// How the code spells the types it uses.
    let types: GeneratedTypeNames

    func lines(for composite: CompositeAttributeDescription) throws -> [String] {
        let typeName = try structName(composite.name)
        let keyName = ClassGenerator.takenStatics.contains(composite.name) ? composite.name + "Key" : escaped(composite.name)
        let propertyName = ClassGenerator.takenMembers.contains(composite.name) ? composite.name + "Value" : escaped(composite.name)
        var lines = [
            "",
            "    /// The composite attribute `\(composite.name)`.",
            "    \(access)static let \(keyName) = \(types["CompositeKey"])(\"\(composite.name)\")",
            "",
            "    /// The composite attribute `\(composite.name)` as one value: nil when every element is NULL.",
            "    \(access)var \(propertyName): \(typeName)? {",
            "        get { \(typeName)(from: self, at: \"\(composite.name)\") }",
            "        set { \(typeName).store(newValue, in: self, at: \"\(composite.name)\") }",
            "    }",
            "",
        ]
        lines += try structLines(composite, typeName: typeName, indent: "    ")
        return lines
    }

    private func structLines(_ composite: CompositeAttributeDescription, typeName: String, indent: String) throws -> [String] {
        var fields: [(name: String, type: String, optional: Bool, read: String, write: String)] = []
        for element in composite.elements {
            try check(element.name, in: composite)
            let type = types[element.attributeType.swiftTypeName]
            let key = types["AttributeKey"]
            let field = fieldName(element.name)
            fields.append((field, type, element.isOptional,
                           "object[\(key)<\(type)?>(path + \".\(element.name)\")]",
                           "object[\(key)<\(type)?>(path + \".\(element.name)\")] = value?.\(escaped(field))"))
        }
        var nestedLines: [String] = []
        // A nested struct must not take the name of a field beside it.
        let fieldNames = Set((composite.elements.map(\.name) + composite.composites.map(\.name)).map(fieldName))
        for nested in composite.composites {
            try check(nested.name, in: composite)
            let nestedType = try structName(nested.name, avoiding: fieldNames)
            let field = fieldName(nested.name)
            fields.append((field, nestedType, true, "\(nestedType)(from: object, at: path + \".\(nested.name)\")",
                           "\(nestedType).store(value?.\(escaped(field)), in: object, at: path + \".\(nested.name)\")"))
            nestedLines += [""] + (try structLines(nested, typeName: nestedType, indent: indent + "    "))
        }
        let inner = indent + "    "
        var lines = [
            "\(indent)/// The elements of the composite attribute `\(composite.name)`\(composite.typeName.map { " (`\($0)`)" } ?? "").",
            "\(indent)\(access)struct \(typeName): \(types["Hashable"]), \(types["Sendable"]) {",
        ]
        for field in fields {
            lines.append("\(inner)\(access)var \(escaped(field.name)): \(field.type)\(field.optional ? "?" : "")")
        }
        let parameters = fields.map { "\($0.name): \($0.type)\($0.optional ? "? = nil" : "")" }.joined(separator: ", ")
        lines += [
            "",
            "\(inner)/// Creates a value.",
            "\(inner)\(access)init(\(parameters)) {",
        ]
        lines += fields.map { "\(inner)    self.\(escaped($0.name)) = \(escaped($0.name))" }
        lines += [
            "\(inner)}",
            "",
            "\(inner)/// The value stored under `path` (nil when every element is NULL or a required one is).",
            "\(inner)\(access)init?(from object: \(types["ManagedObject"]), at path: \(types["String"])) {",
        ]
        for (index, field) in fields.enumerated() { lines.append("\(inner)    let v\(index) = \(field.read)") }
        lines.append("\(inner)    if \(fields.indices.map { "v\($0) == nil" }.joined(separator: " && ")) { return nil }")
        let required = fields.indices.filter { !fields[$0].optional }
        if !required.isEmpty {
            lines.append("\(inner)    guard \(required.map { "let v\($0)" }.joined(separator: ", ")) else { return nil }")
        }
        lines.append("\(inner)    self.init(\(fields.enumerated().map { "\($1.name): v\($0)" }.joined(separator: ", ")))")
        lines += [
            "\(inner)}",
            "",
            "\(inner)/// Stores `value` under `path` (nil: every element NULL).",
            "\(inner)\(access)static func store(_ value: Self?, in object: \(types["ManagedObject"]), at path: \(types["String"])) {",
        ]
        lines += fields.map { "\(inner)    \($0.write)" }
        lines.append("\(inner)}")
        lines += nestedLines
        lines.append("\(indent)}")
        return lines
    }

    /// The struct of a composite: its name capitalized, else with `Value` or `Struct` after
    /// it, whichever no other generated name or used type takes.
    private func structName(_ name: String, avoiding fields: Set<String> = []) throws -> String {
        let capitalized = name.prefix(1).uppercased() + name.dropFirst()
        for candidate in [capitalized, capitalized + "Value", capitalized + "Struct"]
        where !reserved.contains(candidate) && !fields.contains(candidate) && candidate != "Self" {
            return candidate
        }
        throw StrataError(.invalidArgument, "Composite \(entity.name).\(name) cannot be given a struct name: \(capitalized), \(capitalized)Value and \(capitalized)Struct are all taken.",
                          context: .init { $0.entity = entity.name; $0.key = name })
    }

    private func escaped(_ name: String) -> String { ClassGenerator.keywords.contains(name) ? "`\(name)`" : name }

    /// A struct field's name: the element's, or `<name>Value` for a module's name, which as
    /// a field would hide the module the struct's code qualifies types with.
    private func fieldName(_ name: String) -> String {
        GeneratedTypeNames.modules.contains(name) ? name + "Value" : name
    }

    private func check(_ name: String, in composite: CompositeAttributeDescription) throws {
        guard ClassGenerator.isIdentifier(name) else {
            throw StrataError(.invalidArgument, "Element \(entity.name).\(composite.name).\(name) is not a Swift identifier; codegen cannot name it.",
                              context: .init { $0.entity = entity.name; $0.key = composite.name + "." + name })
        }
    }
}
